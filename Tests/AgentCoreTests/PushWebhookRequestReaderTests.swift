@testable import AgentCore
import Testing
import TestSupport

/// The webhook's incremental request reader: early refusals, the secret checked on its header line.
@Suite struct PushWebhookRequestReaderTests {
    static let secret = Array("push-Secret-4471".utf8)

    static func feed(_ text: String, bytewise: Bool = false) -> (PushWebhookRequestReader.Progress, PushWebhookRequestReader) {
        var reader = PushWebhookRequestReader(secret: secret)
        var progress = PushWebhookRequestReader.Progress.needMore
        let bytes = Array(text.utf8)
        for chunk in bytewise ? bytes.map({ [$0] }) : [bytes] {
            progress = reader.append(chunk)
            if progress != .needMore { break }
        }
        return (progress, reader)
    }

    @Test func aCompleteRequestByteByByte() {
        let body = #"{"id":"c-1"}"#
        let request = "POST /push HTTP/1.1\r\nX-WCS-Push-Secret: push-Secret-4471\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        let (progress, reader) = Self.feed(request, bytewise: true)
        #expect(progress == .complete(body: Array(body.utf8)))
        #expect(reader.isAuthenticated)
    }

    @Test func aWrongSecretIsRefusedBeforeTheHeadEnds() {
        let (progress, reader) = Self.feed("POST /push HTTP/1.1\r\nX-WCS-Push-Secret: nope\r\nX-Slow: ")
        #expect(progress == .refuse(status: 401, message: "missing or wrong X-WCS-Push-Secret"))
        #expect(!reader.isAuthenticated)
    }

    @Test func theSecretIsAcceptedAsSoonAsItsLineArrives() {
        let (progress, reader) = Self.feed("POST /push HTTP/1.1\r\nx-wcs-push-secret:  push-Secret-4471 \r\nX-Slow: aaa")
        #expect(progress == .needMore)
        #expect(reader.isAuthenticated)
    }

    @Test func theRequestLineIsJudgedAtOnce() {
        #expect(Self.feed("GET /push HTTP/1.1\r\n").0 == .refuse(status: 405, message: "method not allowed: POST /push"))
        #expect(Self.feed("POST /other HTTP/1.1\r\n").0 == .refuse(status: 404, message: "not found: POST /push"))
        #expect(Self.feed("garbage\r\n").0 == .refuse(status: 400, message: "malformed HTTP request"))
    }

    @Test func aMissingSecretIsRefusedWhenTheHeadEnds() {
        let (progress, _) = Self.feed("POST /push HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}")
        #expect(progress == .refuse(status: 401, message: "missing or wrong X-WCS-Push-Secret"))
    }

    @Test func headLimitsAndLengthRules() {
        let auth = "POST /push HTTP/1.1\r\nX-WCS-Push-Secret: push-Secret-4471\r\n"
        #expect(Self.feed(auth + "X-Big: " + String(repeating: "a", count: 9000)).0
                == .refuse(status: 431, message: "request head too large"))
        #expect(Self.feed(auth + "\r\n").0 == .refuse(status: 411, message: "Content-Length required"))
        #expect(Self.feed(auth + "Transfer-Encoding: chunked\r\n\r\n").0
                == .refuse(status: 411, message: "send the body with Content-Length (chunked bodies are not supported)"))
        if case .refuse(let status, _) = Self.feed(auth + "Content-Length: 99999\r\n\r\n").0 {
            #expect(status == 413)
        } else {
            Issue.record("an oversized body must be refused")
        }
        let (waiting, reader) = Self.feed(auth + "Expect: 100-continue\r\nContent-Length: 5\r\n\r\n")
        #expect(waiting == .needMore)
        #expect(reader.owesContinue)
    }
}

/// Inputs the push-webhook fuzz harness (Tests/Fuzz/push-webhook) crashed on, now refused cleanly.
@Suite struct PushWebhookRequestReaderFuzzRegressionTests {
    /// A blank line before the request line trapped (`buffer[0..<-2]`): any client could stop the
    /// daemon with two bytes.
    @Test func aBlankLineBeforeTheRequestLineIsRefused() {
        let refusal = PushWebhookRequestReader.Progress.refuse(status: 400, message: "malformed HTTP request")
        #expect(PushWebhookRequestReaderTests.feed("\r\n").0 == refusal)
        #expect(PushWebhookRequestReaderTests.feed("\r\nPOST /push HTTP/1.1\r\n\r\n", bytewise: true).0 == refusal)
    }

    /// The input as the fuzzer found it (its first byte is the harness's piece size).
    @Test func theFuzzCrashInputIsRefused() throws {
        let input = try FuzzCorpus.input("push-webhook", "crash-blank-first-line")
        var reader = PushWebhookRequestReader(secret: PushWebhookRequestReaderTests.secret)
        #expect(reader.append(input.dropFirst()) == .refuse(status: 400, message: "malformed HTTP request"))
    }
}
