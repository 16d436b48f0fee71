//! `datetime.strftime` for a naive datetime, as CPython on glibc does it in the C locale:
//! CPython substitutes `%f`, `%z` and `%Z` (both empty when naive), glibc does the rest,
//! including its flags (`%-d`, `%_d`, `%^a`, `%#b`), widths (`%10Y`) and `E`/`O` modifiers.

use crate::clock::{is_leap, DateTime};

/// Formats `t` per `fmt`.
pub(crate) fn strftime(t: &DateTime, fmt: &str) -> String {
    let mut out = String::with_capacity(fmt.len() + 16);
    let mut rest = fmt;
    while let Some(i) = rest.find('%') {
        out.push_str(&rest[..i]);
        let spec = &rest[i..];
        let used = directive(t, spec, &mut out);
        rest = &spec[used..];
    }
    out.push_str(rest);
    out
}

/// Expands the directive at the start of `spec` (which begins with `%`) into `out`; returns
/// how many bytes it used.
fn directive(t: &DateTime, spec: &str, out: &mut String) -> usize {
    let b = spec.as_bytes();
    // CPython's own directives, recognized only right after the '%'.
    match b.get(1) {
        Some(b'f') => {
            out.push_str(&format!("{:06}", t.microsecond));
            return 2;
        }
        Some(b'z' | b'Z') => return 2,
        None => {
            out.push('%');
            return 1;
        }
        _ => {}
    }
    let mut i = 1;
    let mut pad: Option<u8> = None;
    let (mut upper, mut swap) = (false, false);
    while let Some(&c @ (b'_' | b'-' | b'0' | b'^' | b'#')) = b.get(i) {
        match c {
            b'^' => upper = true,
            b'#' => swap = true,
            _ => pad = Some(c),
        }
        i += 1;
    }
    let wstart = i;
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    let width: Option<usize> = spec[wstart..i].parse().ok();
    if let Some(b'E' | b'O') = b.get(i) {
        i += 1;
    }
    let Some(&conv) = b.get(i) else {
        out.push_str(spec);
        return spec.len();
    };
    if !conv.is_ascii() {
        out.push_str(&spec[..i]);
        return i;
    }
    i += 1;
    let num = |v: i64, w: usize, p: u8| Field::Num(v, w, p);
    let wd = i64::from(t.weekday()); // Monday = 0
    let yday = i64::from(t.ordinal()) - 1;
    let hour12 = match t.hour % 12 {
        0 => 12,
        h => i64::from(h),
    };
    let field = match conv {
        b'a' => Field::Text(t.day_name()[..3].to_string()),
        b'A' => Field::Text(t.day_name().to_string()),
        b'b' | b'h' => Field::Text(t.month_name()[..3].to_string()),
        b'B' => Field::Text(t.month_name().to_string()),
        b'p' => Field::Text(if t.hour < 12 { "AM" } else { "PM" }.to_string()),
        b'P' => Field::Text(if t.hour < 12 { "am" } else { "pm" }.to_string()),
        b'c' => Field::Text(strftime(t, "%a %b %e %H:%M:%S %Y")),
        b'x' | b'D' => Field::Text(strftime(t, "%m/%d/%y")),
        b'X' | b'T' => Field::Text(strftime(t, "%H:%M:%S")),
        b'F' => Field::Text(strftime(t, "%Y-%m-%d")),
        b'R' => Field::Text(strftime(t, "%H:%M")),
        b'r' => Field::Text(strftime(t, "%I:%M:%S %p")),
        b'n' => Field::Text("\n".to_string()),
        b't' => Field::Text("\t".to_string()),
        b'%' => Field::Text("%".to_string()),
        b'z' | b'Z' => Field::Text(String::new()),
        b'd' => num(i64::from(t.day), 2, b'0'),
        b'e' => num(i64::from(t.day), 2, b'_'),
        b'H' => num(i64::from(t.hour), 2, b'0'),
        b'k' => num(i64::from(t.hour), 2, b'_'),
        b'I' => num(hour12, 2, b'0'),
        b'l' => num(hour12, 2, b'_'),
        b'j' => num(yday + 1, 3, b'0'),
        b'm' => num(i64::from(t.month), 2, b'0'),
        b'M' => num(i64::from(t.minute), 2, b'0'),
        b'S' => num(i64::from(t.second), 2, b'0'),
        b'y' => num(i64::from(t.year).rem_euclid(100), 2, b'0'),
        b'Y' => num(i64::from(t.year), 1, b'0'),
        b'C' => num(i64::from(t.year).div_euclid(100), 2, b'0'),
        b'u' => num(wd + 1, 1, b'0'),
        b'w' => num((wd + 1) % 7, 1, b'0'),
        b'U' => num((yday + 7 - (wd + 1) % 7) / 7, 2, b'0'),
        b'W' => num((yday + 7 - wd) / 7, 2, b'0'),
        b'V' => num(iso_week(t).1, 2, b'0'),
        b'G' => num(iso_week(t).0, 1, b'0'),
        b'g' => num(iso_week(t).0.rem_euclid(100), 2, b'0'),
        b's' => num(
            t.days_since_epoch() * 86_400
                + i64::from(t.hour) * 3600
                + i64::from(t.minute) * 60
                + i64::from(t.second),
            1,
            b'0',
        ),
        _ => {
            out.push_str(&spec[..i]);
            return i;
        }
    };
    match field {
        Field::Text(mut s) => {
            if upper || (swap && !matches!(conv, b'p')) {
                s = s.to_uppercase();
            } else if swap {
                s = s.to_lowercase();
            }
            let w = width.unwrap_or(0);
            let n = s.chars().count();
            if n < w {
                let c = if pad == Some(b'0') { '0' } else { ' ' };
                out.extend(std::iter::repeat(c).take(w - n));
            }
            out.push_str(&s);
        }
        Field::Num(v, w, p) => {
            let p = pad.unwrap_or(p);
            let digits = v.unsigned_abs().to_string();
            let sign = if v < 0 { "-" } else { "" };
            let w = width.unwrap_or(w);
            let fill = (w.saturating_sub(digits.len() + sign.len())).min(4096);
            match p {
                b'-' => {}
                b'_' => out.extend(std::iter::repeat(' ').take(fill)),
                _ => {
                    out.push_str(sign);
                    out.extend(std::iter::repeat('0').take(fill));
                    out.push_str(&digits);
                    return i;
                }
            }
            out.push_str(sign);
            out.push_str(&digits);
        }
    }
    i
}

/// A formatted directive before padding.
enum Field {
    /// Text, padded with spaces only when a width is given.
    Text(String),
    /// A number with its default width and padding (`b'0'` or `b'_'`).
    Num(i64, usize, u8),
}

/// The ISO 8601 (year, week) of `t`.
fn iso_week(t: &DateTime) -> (i64, i64) {
    let year = i64::from(t.year);
    let wd = i64::from(t.weekday()) + 1; // Monday = 1
    let week = (i64::from(t.ordinal()) - wd + 10) / 7;
    let weeks_in = |y: i64| -> i64 {
        // Weekday of January 1st of `y`: shift from this date's.
        let jan1 = DateTime {
            year: y as i32,
            month: 1,
            day: 1,
            hour: 0,
            minute: 0,
            second: 0,
            microsecond: 0,
        };
        let w = jan1.weekday(); // Monday = 0
        if w == 3 || (w == 2 && is_leap(y as i32)) {
            53
        } else {
            52
        }
    };
    if week < 1 {
        (year - 1, weeks_in(year - 1))
    } else if week > weeks_in(year) {
        (year + 1, 1)
    } else {
        (year, week)
    }
}

#[cfg(test)]
mod unit {
    use super::*;

    fn t() -> DateTime {
        DateTime {
            year: 2026,
            month: 1,
            day: 5,
            hour: 9,
            minute: 7,
            second: 3,
            microsecond: 42,
        }
    }

    #[test]
    fn like_python_on_glibc() {
        let t = t();
        assert_eq!(strftime(&t, "%Y-%m-%d %H:%M:%S"), "2026-01-05 09:07:03");
        assert_eq!(
            strftime(&t, "%a %A %b %B %j %p %I %f %e|%Z|%z|%%"),
            "Mon Monday Jan January 005 AM 09 000042  5|||%"
        );
        assert_eq!(
            strftime(&t, "%c|%x|%X|%D|%F|%T|%R|%r"),
            "Mon Jan  5 09:07:03 2026|01/05/26|09:07:03|01/05/26|2026-01-05|09:07:03|09:07|09:07:03 AM"
        );
        assert_eq!(
            strftime(&t, "%Q|%-d|%_d|%^a|%#b|%10Y|%Ey|%Od|%k|%l|%P|%u|%w|%U|%W|%V|%G|%g|%C|%h|%n|%t|%s"),
            "%Q|5| 5|MON|JAN|0000002026|26|05| 9| 9|am|1|1|01|01|02|2026|26|20|Jan|\n|\t|1767604023"
        );
        assert_eq!(strftime(&t, "abc%"), "abc%");
        assert_eq!(strftime(&t, "%:z"), "%:z");
        assert_eq!(strftime(&t, "%d %b %Y"), "05 Jan 2026");
        assert_eq!(strftime(&t, "%B %d, %Y"), "January 05, 2026");
    }

    #[test]
    fn iso_weeks_at_year_edges() {
        let d = |y, m, day| DateTime {
            year: y,
            month: m,
            day,
            hour: 0,
            minute: 0,
            second: 0,
            microsecond: 0,
        };
        assert_eq!(iso_week(&d(2021, 1, 1)), (2020, 53));
        assert_eq!(iso_week(&d(2024, 12, 30)), (2025, 1));
        assert_eq!(iso_week(&d(2026, 1, 1)), (2026, 1));
    }
}
