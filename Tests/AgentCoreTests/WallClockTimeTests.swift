import TestSupport
import Foundation
import Testing
@testable import AgentCore

/// `WallClockTime` (libc) reads the same hour, minute and weekday as Foundation's `Calendar` did
/// for answer rules: in UTC, and in the local zone (this test process links full Foundation, whose
/// `Calendar.current` follows TZ and /etc/localtime as `localtime_r` does).
@Suite struct WallClockTimeTests {
    /// Every 7 hours 13 minutes over two years around now, plus instants before 1970 and fractions.
    static let dates: [Date] = {
        let start = Date().timeIntervalSince1970 - 366 * 86_400
        var dates = stride(from: start, to: start + 2 * 366 * 86_400, by: 7 * 3600 + 13 * 60 + 0.5)
            .map(Date.init(timeIntervalSince1970:))
        dates += [-86_400.5, -1, 0, 0.999, 1_780_000_000].map(Date.init(timeIntervalSince1970:))
        return dates
    }()

    static func calendarFields(_ date: Date, _ calendar: Calendar) -> WallClockTime {
        let parts = calendar.dateComponents([.hour, .minute, .weekday], from: date)
        return WallClockTime(hour: parts.hour!, minute: parts.minute!, weekday: parts.weekday!)
    }

    @Test func utcAgreesWithAGregorianUTCCalendar() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        for date in Self.dates {
            #expect(WallClockTime.utc(date) == Self.calendarFields(date, calendar), "\(date.timeIntervalSince1970)")
        }
    }

    @Test func localAgreesWithTheCurrentCalendar() {
        for date in Self.dates {
            #expect(WallClockTime.local(date) == Self.calendarFields(date, .current), "\(date.timeIntervalSince1970)")
        }
    }

    @Test func knownInstants() {
        // 2026-12-01T23:30:00Z, a Tuesday.
        let tuesday = WallClockTime.utc(Date(timeIntervalSince1970: 1_796_167_800))
        #expect(tuesday == WallClockTime(hour: 23, minute: 30, weekday: 3) && tuesday.minuteOfDay == 1410)
        // 1969-12-31T23:59:59Z, a Wednesday.
        #expect(WallClockTime.utc(Date(timeIntervalSince1970: -1)) == WallClockTime(hour: 23, minute: 59, weekday: 4))
    }
}
