import FoundationEssentials
import Glibc

/// The wall-clock fields answer rules test: hour, minute and weekday of an instant, in the
/// process's local time zone (`TZ`, else /etc/localtime) or in UTC.
///
/// Why libc (`localtime_r`) and not `Calendar.current`: the daemon links FoundationEssentials
/// only, whose `TimeZone.current` is always GMT (the local zone needs FoundationInternationalization
/// and ICU), so rules would silently run on UTC. Pure functions of the time; any thread.
public struct WallClockTime: Sendable, Equatable {
    /// 0 to 23.
    public var hour: Int
    /// 0 to 59.
    public var minute: Int
    /// 1 = Sunday ... 7 = Saturday (as `Calendar`'s weekday).
    public var weekday: Int

    /// Minutes after midnight.
    public var minuteOfDay: Int { hour * 60 + minute }

    /// A time from its fields.
    public init(hour: Int, minute: Int, weekday: Int) {
        self.hour = hour
        self.minute = minute
        self.weekday = weekday
    }

    /// `date` on the local wall clock (daylight saving time included).
    public static func local(_ date: Date) -> WallClockTime {
        fields(of: date, localtime_r)
    }

    /// `date` on the UTC clock.
    public static func utc(_ date: Date) -> WallClockTime {
        fields(of: date, gmtime_r)
    }

    private static func fields(of date: Date,
                               _ convert: (UnsafePointer<time_t>, UnsafeMutablePointer<tm>) -> UnsafeMutablePointer<tm>?)
        -> WallClockTime
    {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        _ = convert(&seconds, &parts)
        return WallClockTime(hour: Int(parts.tm_hour), minute: Int(parts.tm_min), weekday: Int(parts.tm_wday) + 1)
    }
}
