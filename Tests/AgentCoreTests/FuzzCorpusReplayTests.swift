@testable import AgentCore
@testable import AgentTools
import Foundation
import Testing
import TestSupport
import WCSSession

/// Replays the fuzz corpora of the AgentCore harnesses (Tests/Fuzz: push-payload, push-webhook,
/// control-request, config, stun) through the normal build: every kept input, crash inputs included,
/// gets a clean answer or a clean error.
@Suite struct FuzzCorpusReplayTests {
    @Test func pushPayloads() throws {
        let inputs = try FuzzCorpus.inputs("push-payload")
        #expect(!inputs.isEmpty)
        for (name, bytes) in inputs {
            if let payload = try? PushPayload(data: Data(bytes)) {
                #expect(!payload.callId.isEmpty && payload.callId.count <= 256, "\(name)")
            }
        }
    }

    @Test func webhookRequests() throws {
        let inputs = try FuzzCorpus.inputs("push-webhook")
        #expect(!inputs.isEmpty)
        for (name, bytes) in inputs {
            var reader = PushWebhookRequestReader(secret: Array("fuzz-secret".utf8))
            if case .complete(let body) = reader.append(bytes.dropFirst()) {
                #expect(reader.isAuthenticated && body.count <= PushPayload.maximumSize, "\(name)")
            }
        }
    }

    @Test func controlRequests() throws {
        let inputs = try FuzzCorpus.inputs("control-request")
        #expect(!inputs.isEmpty)
        for (name, bytes) in inputs {
            for line in bytes.split(separator: UInt8(ascii: "\n")) {
                if case .success(let request) = ControlWire.decodeRequest(Data(line)) {
                    #expect(!request.verb.isEmpty && request.args.objectValue != nil, "\(name)")
                    _ = try? ControlCoding.decode(DTMFArguments.self, from: request.args)
                    _ = try? ControlCoding.decode(ReconnectArguments.self, from: request.args)
                }
            }
        }
    }

    @Test func configFiles() throws {
        let inputs = try FuzzCorpus.inputs("config")
        #expect(!inputs.isEmpty)
        for (name, bytes) in inputs {
            do {
                let file = try ConfigFile.parse(String(decoding: bytes, as: UTF8.self), path: name)
                try file.validate(schema: ConfigLoader.fileSchema)
                var config = AgentConfig(server: "")
                try ConfigLoader.apply(file, to: &config)
            } catch {
                #expect(error is ConfigError, "\(name): \(error)")
            }
        }
    }

    @Test func stunAnswers() throws {
        let inputs = try FuzzCorpus.inputs("stun")
        #expect(!inputs.isEmpty)
        for (name, bytes) in inputs {
            guard let message = STUNMessage(decoding: bytes) else { continue }
            let again = STUNMessage(decoding: message.encoded())
            #expect(again?.attributes.map(\.value) == message.attributes.map(\.value), "\(name)")
            _ = message.address(.xorMappedAddress)
        }
    }
}
