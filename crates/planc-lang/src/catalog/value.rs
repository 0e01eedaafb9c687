//! Exact values of literals: decimals with `rust_decimal` (never binary
//! floating point), real calendar dates, datetimes with their offset.
//!
//! A literal becomes a [`Value`] only against the type it must have
//! ([`literal_value`]); the same text is a `date` where a date is expected
//! and a `string` elsewhere, because the JSON form has no date literal.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use rust_decimal::Decimal;

use super::types::Ty;
use crate::ast::{CmpOp, Literal, Str};

/// A literal's exact value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    String(Str),
    Int(i64),
    /// Keeps the scale it was written with (`500.00` stays `500.00`).
    Decimal(Decimal),
    Bool(bool),
    Null,
    Date(Date),
    /// Boxed: rare, and 40 bytes with its text, which would make every
    /// value 40 bytes instead of 24.
    Datetime(Box<Datetime>),
}

impl Value {
    /// The value as a message shows it: strings quoted, the rest as written.
    pub fn display(&self) -> String {
        match self {
            Value::String(s) => format!("{s:?}"),
            other => other.to_string(),
        }
    }

    /// Compares two values of comparable kinds: numbers (an `int` and a
    /// `decimal` compare exactly), dates, datetimes (as instants), strings,
    /// booleans and `null`. `None` when the kinds do not compare.
    pub fn compare(&self, other: &Value) -> Option<Ordering> {
        match (self, other) {
            (Value::Int(a), Value::Int(b)) => Some(a.cmp(b)),
            (Value::Int(a), Value::Decimal(b)) => Some(Decimal::from(*a).cmp(b)),
            (Value::Decimal(a), Value::Int(b)) => Some(a.cmp(&Decimal::from(*b))),
            (Value::Decimal(a), Value::Decimal(b)) => Some(a.cmp(b)),
            (Value::Date(a), Value::Date(b)) => Some(a.cmp(b)),
            (Value::Datetime(a), Value::Datetime(b)) => Some(a.instant().cmp(&b.instant())),
            (Value::String(a), Value::String(b)) => Some(a.cmp(b)),
            (Value::Bool(a), Value::Bool(b)) => Some(a.cmp(b)),
            (Value::Null, Value::Null) => Some(Ordering::Equal),
            _ => None,
        }
    }

    /// Whether `self OP limit` holds; `None` when the kinds do not compare.
    /// Equality on strings and booleans is supported; ordering only where
    /// [`Ty::is_ordered`] allows it is meaningful, and the checker refuses
    /// the rest before it asks.
    pub fn satisfies(&self, op: CmpOp, limit: &Value) -> Option<bool> {
        // Equality with `null` is decided for a value of any kind: one that
        // is not `null` differs from it (`location != null`: given).
        if matches!(op, CmpOp::Eq | CmpOp::Ne)
            && matches!(self, Value::Null) != matches!(limit, Value::Null)
        {
            return Some(op == CmpOp::Ne);
        }
        let ord = self.compare(limit)?;
        Some(match op {
            CmpOp::Eq => ord == Ordering::Equal,
            CmpOp::Ne => ord != Ordering::Equal,
            CmpOp::Lt => ord == Ordering::Less,
            CmpOp::Le => ord != Ordering::Greater,
            CmpOp::Gt => ord == Ordering::Greater,
            CmpOp::Ge => ord != Ordering::Less,
        })
    }

    /// The type a value has on its own, without an expected type.
    pub fn natural_type(&self) -> Ty {
        match self {
            Value::String(_) => Ty::String,
            Value::Int(_) => Ty::Int,
            Value::Decimal(_) => Ty::Decimal,
            Value::Bool(_) => Ty::Bool,
            Value::Null => Ty::Null,
            Value::Date(_) => Ty::Date,
            Value::Datetime(_) => Ty::Datetime,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::String(s) => f.write_str(s),
            Value::Int(i) => write!(f, "{i}"),
            Value::Decimal(d) => write!(f, "{d}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Null => f.write_str("null"),
            Value::Date(d) => write!(f, "{d}"),
            Value::Datetime(d) => write!(f, "{d}"),
        }
    }
}

/// The shape [`Date::parse`] reads, as a JSON Schema `pattern` (beside
/// `"format": "date"`, which also asks for the day to exist in its month).
pub const DATE_PATTERN: &str = "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$";

/// The shape [`Datetime::parse`] reads, as a JSON Schema `pattern` (beside
/// `"format": "date-time"`): nine digits of a second's fraction, then only zeros.
pub const DATETIME_PATTERN: &str = "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\\.[0-9]{1,9}0*)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$";

/// A calendar date of the proleptic Gregorian calendar, years 0000 to 9999.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    pub year: u16,
    pub month: u8,
    pub day: u8,
}

impl Date {
    /// Reads `YYYY-MM-DD`, refusing dates that do not exist (`2026-02-30`).
    pub fn parse(s: &str) -> Option<Date> {
        Date::read(s).ok()
    }

    /// [`Date::parse`], saying why a text is not a calendar date: the one
    /// rule of both forms (the text form's E0002, the JSON form's E0204).
    pub fn read(s: &str) -> Result<Date, String> {
        let b = s.as_bytes();
        let shape = || format!("`{s}` is not of the form `YYYY-MM-DD`");
        if b.len() != 10 || b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
            return Err(shape());
        }
        let field = |r: std::ops::Range<usize>| s.get(r).and_then(digits).ok_or_else(shape);
        let (year, month, day) = (field(0..4)?, field(5..7)?, field(8..10)?);
        if !(1..=12).contains(&month) {
            return Err(format!("there is no month {month:02}"));
        }
        let (year, month) = (
            u16::try_from(year).map_err(|_| shape())?,
            u8::try_from(month).map_err(|_| shape())?,
        );
        let days = days_in_month(year, month);
        if day == 0 || day > u32::from(days) {
            let name = MONTHS.get(usize::from(month) - 1).unwrap_or(&"");
            return Err(format!("{name} {year:04} has {days} days"));
        }
        Ok(Date {
            year,
            month,
            day: u8::try_from(day).map_err(|_| shape())?,
        })
    }

    /// Days since 1970-01-01 (negative before).
    pub fn days_since_epoch(self) -> i64 {
        // Howard Hinnant's days_from_civil.
        let y = i64::from(self.year) - i64::from(self.month <= 2);
        let m = i64::from(self.month);
        let d = i64::from(self.day);
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let mp = (m + 9) % 12;
        let doy = (153 * mp + 2) / 5 + d - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

const MONTHS: [&str; 12] = [
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

/// The Gregorian rule: every fourth year, but not every hundredth, but
/// every four hundredth.
fn is_leap(year: u16) -> bool {
    (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400)
}

fn days_in_month(year: u16, month: u8) -> u8 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(year) => 29,
        2 => 28,
        _ => 0,
    }
}

/// Unsigned decimal digits only (no sign, no spaces).
fn digits(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// An RFC 3339 datetime: `2026-03-04T10:00:00Z`, `2026-03-04T10:00:00.5+01:00`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Datetime {
    /// The text as written, which the IR carries unchanged.
    pub text: String,
    pub date: Date,
    /// Seconds into the day, local time.
    pub seconds: u32,
    /// The fraction of a second, in nanoseconds.
    pub nanos: u32,
    /// The offset from UTC in minutes (`Z` is 0).
    pub offset_minutes: i32,
}

impl Datetime {
    pub fn parse(s: &str) -> Option<Datetime> {
        Datetime::read(s).ok()
    }

    /// [`Datetime::parse`], saying why a text is not a date and time: the
    /// one rule of both forms. An RFC 3339 date and time, `T` and `Z` in
    /// either case; a second's fraction exact to the nanosecond; a leap
    /// second only as `23:59:60` in UTC (as JSON Schema's `date-time`
    /// asks; which days had one is not checked).
    pub fn read(s: &str) -> Result<Datetime, String> {
        let shape =
            || format!("`{s}` is not of the form `YYYY-MM-DDThh:mm:ss`, then `Z` or an offset");
        let date = Date::read(s.get(0..10).ok_or_else(shape)?)?;
        let rest = s.get(10..).ok_or_else(shape)?;
        let rest = rest
            .strip_prefix('T')
            .or_else(|| rest.strip_prefix('t'))
            .ok_or_else(shape)?;
        let b = rest.as_bytes();
        if b.get(2) != Some(&b':') || b.get(5) != Some(&b':') {
            return Err(shape());
        }
        let field = |r: std::ops::Range<usize>| rest.get(r).and_then(digits).ok_or_else(shape);
        let (hour, minute, second) = (field(0..2)?, field(3..5)?, field(6..8)?);
        if hour > 23 || minute > 59 || second > 60 {
            return Err(format!(
                "there is no time {hour:02}:{minute:02}:{second:02}"
            ));
        }
        let mut rest = rest.get(8..).ok_or_else(shape)?;
        let mut nanos = 0u32;
        if let Some(frac) = rest.strip_prefix('.') {
            let n = frac.bytes().take_while(u8::is_ascii_digit).count();
            let text = frac.get(..n).filter(|t| !t.is_empty()).ok_or_else(shape)?;
            // Nanosecond precision; further digits must be zeros to be exact.
            let (kept, dropped) = text.split_at(n.min(9));
            if !dropped.bytes().all(|c| c == b'0') {
                return Err(format!(
                    "the fraction of a second `.{text}` is finer than a nanosecond"
                ));
            }
            let mut v = digits(kept).ok_or_else(shape)?;
            for _ in kept.len()..9 {
                v *= 10;
            }
            nanos = v;
            rest = frac.get(n..).ok_or_else(shape)?;
        }
        let offset_minutes = match rest {
            "Z" | "z" => 0,
            _ => {
                let sign = match rest.as_bytes().first() {
                    Some(b'+') => 1,
                    Some(b'-') => -1,
                    _ => return Err(shape()),
                };
                if rest.len() != 6 || rest.as_bytes().get(3) != Some(&b':') {
                    return Err(shape());
                }
                let h = rest.get(1..3).and_then(digits).ok_or_else(shape)?;
                let m = rest.get(4..6).and_then(digits).ok_or_else(shape)?;
                if h > 23 || m > 59 {
                    return Err(format!("there is no offset {rest}"));
                }
                sign * i32::try_from(h * 60 + m).map_err(|_| shape())?
            }
        };
        // The minute of the day in UTC: a leap second ends 23:59 UTC.
        let local = i32::try_from(hour * 60 + minute).map_err(|_| shape())?;
        if second == 60 && (local - offset_minutes).rem_euclid(1440) != 1439 {
            return Err(format!(
                "there is no time {hour:02}:{minute:02}:60: a leap second is 23:59:60 in UTC"
            ));
        }
        Ok(Datetime {
            text: s.to_string(),
            date,
            seconds: hour * 3600 + minute * 60 + second,
            nanos,
            offset_minutes,
        })
    }

    /// Seconds since the epoch in UTC, and nanoseconds: the instant.
    pub fn instant(&self) -> (i64, u32) {
        let secs = self.date.days_since_epoch() * 86_400 + i64::from(self.seconds)
            - i64::from(self.offset_minutes) * 60;
        (secs, self.nanos)
    }
}

impl fmt::Display for Datetime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Why a literal is not a value of the expected type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LiteralError {
    /// The literal is of another kind altogether (a string where an `int`
    /// is expected): a type mismatch.
    Mismatch,
    /// A string not among the enum's values.
    NotInEnum,
    /// Text that should be a date but is not a calendar date.
    BadDate,
    /// Text that should be a datetime but is not an RFC 3339 datetime.
    BadDatetime,
    /// A number with more digits than an exact decimal holds (28 to 29
    /// significant digits): it would have to be rounded, and is refused.
    InexactDecimal,
    /// An integer outside the 64-bit range.
    IntOverflow,
}

impl LiteralError {
    /// Whether this is a mismatch of kinds (E0201 for arguments) rather than
    /// a literal of the right kind that is invalid (E0204).
    pub fn is_mismatch(&self) -> bool {
        matches!(self, LiteralError::Mismatch)
    }
}

/// Reads a number literal's text as an exact decimal; never rounds.
pub fn parse_decimal(text: &str) -> Result<Decimal, LiteralError> {
    Decimal::from_str_exact(text)
        .or_else(|e| {
            // Zeros after the last digit of the fraction change nothing:
            // `2.000…0` with more zeros than a decimal holds is still `2`.
            let trimmed = match text.split_once('.') {
                Some((_, frac)) if frac.ends_with('0') => text.trim_end_matches('0'),
                _ => return Err(e),
            };
            Decimal::from_str_exact(trimmed.trim_end_matches('.'))
        })
        .map_err(|_| LiteralError::InexactDecimal)
}

/// What the decimals planc reads hold, as the schemas for planners say it
/// (`planc schema`): a longer literal is E0204, never rounded.
pub const DECIMAL_LIMIT: &str =
    "an exact decimal of at most 28 significant digits (a longer one is refused, never rounded)";

fn parse_int(text: &str) -> Result<i64, LiteralError> {
    i64::from_str(text).map_err(|_| LiteralError::IntOverflow)
}

/// The value and the type of a literal on its own (where `any` is expected).
pub fn natural_value(lit: &Literal) -> Result<Value, LiteralError> {
    Ok(match lit {
        Literal::String(s) => Value::String(s.clone()),
        Literal::Int(t) => Value::Int(parse_int(t)?),
        Literal::Decimal(t) => Value::Decimal(parse_decimal(t)?),
        Literal::Bool(b) => Value::Bool(*b),
        Literal::Null => Value::Null,
        Literal::Date(t) => Value::Date(Date::parse(t).ok_or(LiteralError::BadDate)?),
        Literal::Datetime(t) => Value::Datetime(Box::new(
            Datetime::parse(t).ok_or(LiteralError::BadDatetime)?,
        )),
    })
}

/// The value of `lit` where a value of type `expected` is required.
///
/// A string is accepted where a `date` or `datetime` is expected when its
/// text is one (the JSON form writes dates as strings); an `int` literal is
/// accepted where a `decimal` is, and a `decimal` without a fraction
/// (`5.0`) where an `int` is. Returns the value and its own type (an
/// enum value keeps the enum type).
pub fn literal_value(lit: &Literal, expected: &Ty) -> Result<(Value, Ty), LiteralError> {
    match (expected, lit) {
        (Ty::Error | Ty::Any, _) => {
            let v = natural_value(lit)?;
            let t = v.natural_type();
            Ok((v, t))
        }
        (Ty::Optional(_) | Ty::Null, Literal::Null) => Ok((Value::Null, Ty::Null)),
        (Ty::Optional(inner), _) => literal_value(lit, inner),
        // The first member that takes the literal; else the most telling
        // refusal: a value of the right kind that is not allowed (not in
        // the set, not a real date) over a mismatch of kinds.
        (Ty::Union(members), _) => {
            let mut refusal = LiteralError::Mismatch;
            for m in members.iter() {
                match literal_value(lit, m) {
                    Ok(found) => return Ok(found),
                    Err(LiteralError::Mismatch) => {}
                    Err(e) => {
                        if refusal.is_mismatch() {
                            refusal = e;
                        }
                    }
                }
            }
            Err(refusal)
        }
        (Ty::Lit(want), _) => {
            let got = match (&**want, lit) {
                (Value::Bool(_), Literal::Bool(_)) => natural_value(lit)?,
                (Value::Int(_) | Value::Decimal(_), Literal::Int(t) | Literal::Decimal(t)) => {
                    Value::Decimal(parse_decimal(t)?)
                }
                _ => return Err(LiteralError::Mismatch),
            };
            if got.compare(want) == Some(Ordering::Equal) {
                Ok(((**want).clone(), expected.clone()))
            } else {
                Err(LiteralError::NotInEnum)
            }
        }
        (Ty::String, Literal::String(s)) => Ok((Value::String(s.clone()), Ty::String)),
        (Ty::Enum(values), Literal::String(s)) => {
            if values.iter().any(|v| v == s) {
                Ok((Value::String(s.clone()), expected.clone()))
            } else {
                Err(LiteralError::NotInEnum)
            }
        }
        (Ty::Int, Literal::Int(t)) => Ok((Value::Int(parse_int(t)?), Ty::Int)),
        // JSON Schema counts `5.0` as an integer: a decimal literal with no
        // fraction is the integer it names.
        (Ty::Int, Literal::Decimal(t)) => match parse_decimal(t) {
            Ok(d) if d.fract().is_zero() => i64::try_from(d)
                .map(|i| (Value::Int(i), Ty::Int))
                .map_err(|_| LiteralError::IntOverflow),
            _ => Err(LiteralError::Mismatch),
        },
        (Ty::Decimal, Literal::Int(t) | Literal::Decimal(t)) => {
            Ok((Value::Decimal(parse_decimal(t)?), Ty::Decimal))
        }
        (Ty::Bool, Literal::Bool(b)) => Ok((Value::Bool(*b), Ty::Bool)),
        (Ty::Date, Literal::Date(t) | Literal::String(t)) => Ok((
            Value::Date(Date::parse(t).ok_or(LiteralError::BadDate)?),
            Ty::Date,
        )),
        (Ty::Datetime, Literal::Datetime(t) | Literal::String(t)) => Ok((
            Value::Datetime(Box::new(
                Datetime::parse(t).ok_or(LiteralError::BadDatetime)?,
            )),
            Ty::Datetime,
        )),
        _ => Err(LiteralError::Mismatch),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_exact() {
        let limit = parse_decimal("500").ok();
        let above = parse_decimal("500.0000000000000001").ok();
        assert!(above > limit);
        assert_eq!(
            parse_decimal("4180.00").map(|d| d.to_string()),
            Ok("4180.00".to_string())
        );
        // More significant digits than 96 bits hold: refused, not rounded.
        assert_eq!(
            parse_decimal("500.00000000000000000000000000001"),
            Err(LiteralError::InexactDecimal)
        );
        assert_eq!(
            parse_decimal("123456789012345678901234567890123"),
            Err(LiteralError::InexactDecimal)
        );
        // Trailing zeros past what a decimal holds are still exact.
        let zeros = format!("2.{}", "0".repeat(40));
        assert_eq!(parse_decimal(&zeros), Ok(Decimal::from(2)));
        assert_eq!(
            parse_decimal(&format!("{zeros}1")),
            Err(LiteralError::InexactDecimal)
        );
        let v = Value::Decimal(parse_decimal("500.0000000000000001").unwrap_or_default());
        assert_eq!(v.satisfies(CmpOp::Le, &Value::Int(500)), Some(false));
        assert_eq!(
            Value::Int(500).satisfies(CmpOp::Le, &Value::Int(500)),
            Some(true)
        );
    }

    #[test]
    fn dates_are_real() {
        assert!(Date::parse("2026-03-04").is_some());
        assert!(Date::parse("2024-02-29").is_some());
        assert!(Date::parse("2026-02-29").is_none());
        assert!(Date::parse("1900-02-29").is_none());
        assert!(Date::parse("2000-02-29").is_some());
        assert!(Date::parse("2026-13-01").is_none());
        assert!(Date::parse("2026-1-01").is_none());
        assert!(Date::parse("+026-01-01").is_none());
        assert_eq!(
            Date::parse("1970-01-01").map(Date::days_since_epoch),
            Some(0)
        );
        assert_eq!(
            Date::parse("2000-03-01").map(Date::days_since_epoch),
            Some(11_017)
        );
    }

    #[test]
    fn datetimes() {
        let a = Datetime::parse("2026-03-04T10:00:00Z");
        let b = Datetime::parse("2026-03-04T11:00:00+01:00");
        assert!(a.is_some());
        assert_eq!(a.map(|d| d.instant()), b.map(|d| d.instant()));
        assert!(Datetime::parse("2026-03-04T24:00:00Z").is_none());
        assert!(Datetime::parse("2026-03-04T10:00:00").is_none());
        assert_eq!(
            Datetime::parse("2026-03-04T10:00:00.25Z").map(|d| d.nanos),
            Some(250_000_000)
        );
    }

    #[test]
    fn literals_against_types() {
        let en = Ty::Enum(vec![Str::from("starter"), Str::from("pro")].into());
        assert!(literal_value(&Literal::String("starter".into()), &en).is_ok());
        assert_eq!(
            literal_value(&Literal::String("gold".into()), &en),
            Err(LiteralError::NotInEnum)
        );
        assert_eq!(
            literal_value(&Literal::String("2026-02-30".into()), &Ty::Date),
            Err(LiteralError::BadDate)
        );
        assert!(literal_value(&Literal::String("2026-02-28".into()), &Ty::Date).is_ok());
        assert!(literal_value(&Literal::Int("5".into()), &Ty::Decimal).is_ok());
        assert_eq!(
            literal_value(&Literal::Decimal("5.5".into()), &Ty::Int),
            Err(LiteralError::Mismatch)
        );
        assert!(literal_value(&Literal::Null, &Ty::optional(Ty::Int)).is_ok());
        assert_eq!(
            literal_value(&Literal::Null, &Ty::Int),
            Err(LiteralError::Mismatch)
        );
        assert_eq!(
            literal_value(&Literal::Int("99999999999999999999".into()), &Ty::Int),
            Err(LiteralError::IntOverflow)
        );
        // A union takes a literal one member takes; otherwise the refusal
        // of a value of the right kind wins over a mismatch of kinds.
        let levels = Ty::union(vec![
            Ty::Lit(std::sync::Arc::new(Value::Int(1))),
            Ty::Lit(std::sync::Arc::new(Value::Int(5))),
            en,
        ]);
        assert_eq!(
            literal_value(&Literal::Decimal("5.0".into()), &levels).map(|(v, _)| v),
            Ok(Value::Int(5))
        );
        assert_eq!(
            literal_value(&Literal::Int("3".into()), &levels),
            Err(LiteralError::NotInEnum)
        );
        assert_eq!(
            literal_value(&Literal::String("gold".into()), &levels),
            Err(LiteralError::NotInEnum)
        );
        assert_eq!(
            literal_value(&Literal::Bool(true), &levels),
            Err(LiteralError::Mismatch)
        );
        let si = Ty::union(vec![Ty::String, Ty::Int]);
        assert_eq!(
            literal_value(&Literal::Int("7".into()), &si).map(|(v, _)| v),
            Ok(Value::Int(7))
        );
    }
}
