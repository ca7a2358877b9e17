import DecimalText
import FoundationEssentials
import Glibc

/// ISO 8601 UTC times with milliseconds (`2026-11-29T18:00:00.123Z`), written and read with libc
/// (`gmtime_r`, `timegm`): the format of event times, call records, the token file and log lines.
///
/// Why not `ISO8601DateFormatter`: on Linux it is a CFDateFormatter over ICU, so every use opens
/// ICU calendars, time zones and date formats (and maps several MB of ICU code and data into an
/// otherwise idle daemon), and the agent created one per event. This is a pure function of the
/// time. Runs on: any thread.
package enum ISO8601Time {
    /// `date` rounded to the nearest millisecond (as `ISO8601DateFormatter` with fractional seconds).
    package static func string(_ date: Date) -> String {
        string(milliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded()))
    }

    /// The time `milliseconds` after 1970-01-01T00:00:00Z.
    package static func string(milliseconds: Int64) -> String {
        var seconds = time_t(milliseconds.quotientRoundingDown(by: 1000))
        let millis = Int32(milliseconds - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var text = ""
        text.reserveCapacity(24)
        append(parts.tm_year + 1900, 4, to: &text)
        text += "-"
        append(parts.tm_mon + 1, 2, to: &text)
        text += "-"
        append(parts.tm_mday, 2, to: &text)
        text += "T"
        append(parts.tm_hour, 2, to: &text)
        text += ":"
        append(parts.tm_min, 2, to: &text)
        text += ":"
        append(parts.tm_sec, 2, to: &text)
        text += "."
        append(millis, 3, to: &text)
        text += "Z"
        return text
    }

    /// Reads `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM|±HHMM)` (the fraction: 1 to 9 digits);
    /// nil for anything else, including out-of-range fields.
    package static func date(_ text: String) -> Date? {
        var scanner = Scanner(Array(text.utf8))
        guard let year = scanner.number(4), scanner.take("-"), let month = scanner.number(2), scanner.take("-"),
              let day = scanner.number(2), scanner.take("T") || scanner.take("t"),
              let hour = scanner.number(2), scanner.take(":"), let minute = scanner.number(2), scanner.take(":"),
              let second = scanner.number(2)
        else { return nil }
        var fraction = 0.0
        if scanner.take(".") {
            var scale = 0.1
            var digits = 0
            while let digit = scanner.digit() {
                fraction += Double(digit) * scale
                scale /= 10
                digits += 1
            }
            guard (1...9).contains(digits) else { return nil }
        }
        var offset = 0
        if scanner.take("Z") || scanner.take("z") {
            offset = 0
        } else if let sign = scanner.sign(), let hours = scanner.number(2) {
            _ = scanner.take(":")
            guard let minutes = scanner.number(2), hours < 24, minutes < 60 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard scanner.atEnd, (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let seconds = timegm(&parts)
        guard parts.tm_mday == Int32(day) else { return nil } // e.g. February 30 rolled over
        return Date(timeIntervalSince1970: Double(seconds - offset) + fraction)
    }

    private static func append(_ value: Int32, _ width: Int, to text: inout String) {
        text += DecimalText.zeroPadded(value, width: width)
    }

    /// A cursor over ASCII bytes.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index == bytes.count }

        mutating func take(_ character: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(character.value) else { return false }
            index += 1
            return true
        }

        mutating func digit() -> Int? {
            guard index < bytes.count, (48...57).contains(bytes[index]) else { return nil }
            index += 1
            return Int(bytes[index - 1] - 48)
        }

        /// Exactly `count` digits.
        mutating func number(_ count: Int) -> Int? {
            var value = 0
            for _ in 0..<count {
                guard let d = digit() else { return nil }
                value = value * 10 + d
            }
            return value
        }

        mutating func sign() -> Int? {
            if take("+") { return 1 }
            if take("-") { return -1 }
            return nil
        }
    }
}

private extension Int64 {
    /// Floor division (for times before 1970).
    func quotientRoundingDown(by divisor: Int64) -> Int64 {
        let q = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? q - 1 : q
    }
}
