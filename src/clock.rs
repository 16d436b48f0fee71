//! The clock `strftime_now` reads: the system's, or one the caller fixes for reproducible
//! prompts and tests.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::{err, Error};

/// A calendar date and time of day, without a time zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DateTime {
    /// The year, e.g. 2026.
    pub year: i32,
    /// 1 to 12.
    pub month: u8,
    /// 1 to 31.
    pub day: u8,
    /// 0 to 23.
    pub hour: u8,
    /// 0 to 59.
    pub minute: u8,
    /// 0 to 59.
    pub second: u8,
    /// 0 to 999999.
    pub microsecond: u32,
}

/// Where `strftime_now` gets the time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Clock {
    /// The system clock, read once per render, in UTC.
    #[default]
    System,
    /// Always this time.
    Fixed(DateTime),
}

impl Clock {
    /// The current time by this clock.
    pub fn now(&self) -> DateTime {
        match self {
            Clock::Fixed(t) => *t,
            Clock::System => {
                let d = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .unwrap_or_default();
                DateTime::from_unix(d.as_secs() as i64, d.subsec_micros())
            }
        }
    }
}

impl DateTime {
    /// The UTC time `secs` seconds (and `micros`) after the Unix epoch.
    pub fn from_unix(secs: i64, micros: u32) -> DateTime {
        let days = secs.div_euclid(86_400);
        let rem = secs.rem_euclid(86_400);
        // Civil-from-days (Howard Hinnant's algorithm).
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u8;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
        let year = (yoe + era * 400 + i64::from(month <= 2)) as i32;
        DateTime {
            year,
            month,
            day,
            hour: (rem / 3600) as u8,
            minute: (rem % 3600 / 60) as u8,
            second: (rem % 60) as u8,
            microsecond: micros,
        }
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS` (a space may stand for the `T`; seconds are optional).
    pub fn parse(s: &str) -> Result<DateTime, Error> {
        let bad = || err!(Input, "invalid time {s:?}: expected YYYY-MM-DDTHH:MM:SS");
        let b = s.as_bytes();
        if b.len() < 16 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b' ') {
            return Err(bad());
        }
        let num = |r: std::ops::Range<usize>| -> Result<u32, Error> {
            s.get(r).and_then(|t| t.parse().ok()).ok_or_else(bad)
        };
        let second = if b.len() >= 19 && b[16] == b':' {
            num(17..19)?
        } else {
            0
        };
        let t = DateTime {
            year: num(0..4)? as i32,
            month: num(5..7)? as u8,
            day: num(8..10)? as u8,
            hour: num(11..13)? as u8,
            minute: num(14..16)? as u8,
            second: second as u8,
            microsecond: 0,
        };
        let valid = (1..=12).contains(&t.month)
            && t.day >= 1
            && t.day <= days_in_month(t.year, t.month)
            && t.hour < 24
            && t.minute < 60
            && t.second < 60;
        if valid {
            Ok(t)
        } else {
            Err(bad())
        }
    }

    /// The English name of the weekday: `Monday` ... `Sunday`.
    pub fn day_name(&self) -> &'static str {
        DAY_NAMES[usize::from(self.weekday())]
    }

    /// The English name of the month: `January` ... `December`.
    pub fn month_name(&self) -> &'static str {
        MONTH_NAMES[usize::from(self.month.clamp(1, 12)) - 1]
    }

    /// Seconds since the Unix epoch (the time is taken as UTC).
    pub fn unix_seconds(&self) -> i64 {
        self.days_since_epoch() * 86_400
            + i64::from(self.hour) * 3600
            + i64::from(self.minute) * 60
            + i64::from(self.second)
    }

    /// Day of the week, 0 = Monday ... 6 = Sunday.
    pub fn weekday(&self) -> u8 {
        (self.days_since_epoch() + 3).rem_euclid(7) as u8
    }

    /// Day of the year, 1 to 366.
    pub fn ordinal(&self) -> u16 {
        let mut n = u16::from(self.day);
        for m in 1..self.month {
            n += u16::from(days_in_month(self.year, m));
        }
        n
    }

    /// Days since 1970-01-01.
    pub fn days_since_epoch(&self) -> i64 {
        let y = i64::from(self.year) - i64::from(self.month <= 2);
        let era = y.div_euclid(400);
        let yoe = y.rem_euclid(400);
        let m = i64::from(self.month);
        let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(self.day) - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }
}

const DAY_NAMES: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

const MONTH_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// Whether `year` is a leap year in the Gregorian calendar.
pub(crate) fn is_leap(year: i32) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

/// The number of days in `month` of `year`.
pub(crate) fn days_in_month(year: i32, month: u8) -> u8 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unix_round_trip() {
        let t = DateTime::from_unix(1_768_473_000, 0);
        assert_eq!(t, DateTime::parse("2026-01-15T10:30:00").unwrap());
        assert_eq!(t.days_since_epoch(), 1_768_473_000 / 86_400);
        assert_eq!(t.weekday(), 3); // a Thursday
        assert_eq!(t.ordinal(), 15);
    }

    #[test]
    fn parse_rejects_garbage() {
        assert!(DateTime::parse("2026-02-30T00:00:00").is_err());
        assert!(DateTime::parse("yesterday").is_err());
    }
}
