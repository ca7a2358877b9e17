import TestSupport
@testable import AgentCore
import Foundation
import Testing

/// `ISO8601Time` against Foundation's `ISO8601DateFormatter` (what it replaces): the same text for
/// the same time, and the same time read back.
@Suite struct ISO8601TimeTests {
    private static func foundation() -> ISO8601DateFormatter {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f
    }

    private static let samples: [Double] = {
        var values: [Double] = [0, 0.001, 0.999, 1_795_975_200.25, 1_795_975_200.0005, 951_782_400.5, // 2000-02-29
                                4_102_444_799.999, 86_399.9999, 1_000_000_000.123]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<500 { // deterministic spread over 1970...2100, any fraction
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            values.append(Double(state >> 11) / Double(1 << 53) * 4_102_444_800)
        }
        return values
    }()

    @Test func formatsLikeFoundation() {
        let reference = Self.foundation()
        for seconds in Self.samples {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(ISO8601Time.string(date) == reference.string(from: date), "\(seconds)")
        }
    }

    @Test func readsBackWhatItWritesToTheMillisecond() throws {
        for seconds in Self.samples {
            let text = ISO8601Time.string(Date(timeIntervalSince1970: seconds))
            let back = try #require(ISO8601Time.date(text), "\(text)")
            #expect(abs(back.timeIntervalSince1970 - (seconds * 1000).rounded() / 1000) < 1e-6, "\(text)")
        }
    }

    @Test func readsWhatFoundationReads() throws {
        let reference = Self.foundation()
        for text in ["2026-11-29T18:00:00.123Z", "2026-11-29T19:30:00.5+01:30", "2026-11-29T17:00:00.000-01:00",
                     "2024-02-29T23:59:59.999Z", "1970-01-01T00:00:00.000Z"] {
            let ours = try #require(ISO8601Time.date(text), "\(text)")
            let theirs = try #require(reference.date(from: text), "\(text)")
            #expect(abs(ours.timeIntervalSince1970 - theirs.timeIntervalSince1970) < 1e-6, "\(text)")
        }
        #expect(ISO8601Time.date("2026-11-29T18:00:00Z")?.timeIntervalSince1970 == 1_795_975_200)
        #expect(ISO8601Time.date("2026-11-29T18:00:00+0100")?.timeIntervalSince1970 == 1_795_971_600)
    }

    @Test func rejectsWhatIsNotAnInternetDateTime() {
        for text in ["", "2026-11-29", "2026-11-29 18:00:00Z", "2026-11-29T18:00:00", "2026-13-01T00:00:00Z",
                     "2026-02-30T00:00:00Z", "2026-11-29T24:00:00Z", "2026-11-29T18:60:00Z", "2026-11-29T18:00:00.Z",
                     "2026-11-29T18:00:00.1234567890Z", "2026-11-29T18:00:00Zjunk", "26-11-29T18:00:00Z",
                     "2026-11-29T18:00:00+25:00", "２026-11-29T18:00:00Z"] {
            #expect(ISO8601Time.date(text) == nil, "\(text)")
        }
    }

    @Test func timesRoundToTheNearestMillisecond() {
        #expect(LogLineFormatter.timestamp(1_795_975_200.0006) == "2026-11-29T18:00:00.001Z")
        #expect(ISO8601Time.string(Date(timeIntervalSince1970: 1_795_975_200.0004)) == "2026-11-29T18:00:00.000Z")
        #expect(ISO8601Time.string(milliseconds: -1) == "1969-12-31T23:59:59.999Z")
    }
}
