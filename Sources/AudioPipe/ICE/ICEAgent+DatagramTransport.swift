/// ICE is the datagram path of a real call: its selected pair carries DTLS, SRTP and RTCP.
extension ICEAgent: DatagramTransport {}
