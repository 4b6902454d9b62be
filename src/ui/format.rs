//! Text formatting shared by panels: thousands separators, credits, elapsed time.

/// `1482` -> `"1,482"`; keeps one decimal when the value is fractional (`2.5`).
pub fn thousands(value: f64) -> String {
    if !value.is_finite() {
        return "–".to_owned();
    }
    let rounded_tenth = (value * 10.0).round() / 10.0;
    let negative = rounded_tenth < 0.0;
    let abs = rounded_tenth.abs();
    let whole = abs.trunc() as u64;
    let tenth = ((abs - abs.trunc()) * 10.0).round() as u64;
    let digits = whole.to_string();
    let mut out = String::with_capacity(digits.len() + 4);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    if tenth > 0 && tenth < 10 {
        out.push('.');
        out.push_str(&tenth.to_string());
    }
    if negative {
        out.insert(0, '-');
    }
    out
}

/// `8` -> `"8 credits"`, `1` -> `"1 credit"`.
pub fn credits(value: f64) -> String {
    let unit = if (value - 1.0).abs() < f64::EPSILON {
        "credit"
    } else {
        "credits"
    };
    format!("{} {unit}", thousands(value))
}

/// `"2–16 credits"`, or a single value when the range is a point.
pub fn credit_range(low: f64, high: f64) -> String {
    if (high - low).abs() < 0.05 {
        credits(low)
    } else {
        format!("{}–{} credits", thousands(low), thousands(high))
    }
}

/// Video lengths: 5.0 -> "5 s", 2.5 -> "2.5 s".
pub fn seconds_label(secs: f64) -> String {
    let text = format!("{secs:.1}");
    format!("{} s", text.trim_end_matches('0').trim_end_matches('.'))
}

/// Elapsed time as `"0:07"`, `"2:31"`, `"1:02:09"`.
pub fn elapsed(ms: i64) -> String {
    let secs = (ms.max(0) / 1000) as u64;
    let (h, m, s) = (secs / 3600, (secs / 60) % 60, secs % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

/// Now, in Unix milliseconds (the same clock the engine stamps jobs with).
pub fn now_unix_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// The first line of `text`, cut to `max_chars` with an ellipsis.
pub fn excerpt(text: &str, max_chars: usize) -> String {
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let line = line.trim();
    if line.chars().count() <= max_chars {
        line.to_owned()
    } else {
        let mut out: String = line.chars().take(max_chars.saturating_sub(1)).collect();
        out.push('…');
        out
    }
}

/// An ISO 8601 timestamp shown in local time, or the raw text when it does not parse.
pub fn timestamp(iso: &str) -> String {
    match chrono::DateTime::parse_from_rfc3339(iso) {
        Ok(t) => t
            .with_timezone(&chrono::Local)
            .format("%Y-%m-%d %H:%M")
            .to_string(),
        Err(_) => iso.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(1482.0), "1,482");
        assert_eq!(thousands(1_000_000.0), "1,000,000");
        assert_eq!(thousands(999.0), "999");
        assert_eq!(thousands(2.5), "2.5");
        assert_eq!(thousands(0.0), "0");
    }

    #[test]
    fn credit_texts() {
        assert_eq!(credits(1.0), "1 credit");
        assert_eq!(credits(8.0), "8 credits");
        assert_eq!(credit_range(2.0, 16.0), "2–16 credits");
        assert_eq!(credit_range(4.0, 4.0), "4 credits");
    }

    #[test]
    fn elapsed_texts() {
        assert_eq!(elapsed(7_400), "0:07");
        assert_eq!(elapsed(151_000), "2:31");
        assert_eq!(elapsed(3_729_000), "1:02:09");
    }

    #[test]
    fn excerpts() {
        assert_eq!(excerpt("hello\nworld", 20), "hello");
        assert_eq!(excerpt("abcdefgh", 5), "abcd…");
    }
}
