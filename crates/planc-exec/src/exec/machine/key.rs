//! Idempotency keys (`docs/executors.md`, "Idempotency keys"): every
//! dispatch of a write carries the hex SHA-256 of the canonical JSON
//! (RFC 8785) of `[fingerprint, step, arguments]`, the IR's fingerprint,
//! the step's name and its resolved arguments. The same write of the same
//! plan gets the same key however often it is dispatched (a retry, a run
//! resumed after a kill, a workflow replayed), so a tool that keeps the
//! keys it has seen acts once; another plan, another step or other
//! arguments get another key.

use std::fmt::Write as _;

use sha2::{Digest, Sha256};

use super::Artifacts;
use crate::exec::Data;

/// The key of a write: 64 lowercase hex digits. `None` only when the
/// arguments cannot be written as canonical JSON (never for values the
/// machine resolved).
pub fn idempotency_key(fingerprint: &str, step: &str, args: &Artifacts) -> Option<String> {
    let call = (fingerprint, step, Data::Object(args.clone()));
    let text = crate::ir::fingerprint::canonical(&call).ok()?;
    let digest = Sha256::digest(text.as_bytes());
    let mut out = String::with_capacity(64);
    for byte in digest.iter() {
        let _ = write!(out, "{byte:02x}");
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn args(pairs: &[(&str, Data)]) -> Artifacts {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    #[test]
    fn the_key_is_the_digest_of_the_canonical_call() {
        let a = args(&[
            ("to", "acct_1".into()),
            ("amount_eur", Data::number("15.00")),
        ]);
        let key = idempotency_key("sha256:ab", "credit", &a).unwrap();
        // sha256 of `["sha256:ab","credit",{"amount_eur":15.00,"to":"acct_1"}]`
        let expected =
            Sha256::digest(br#"["sha256:ab","credit",{"amount_eur":15.00,"to":"acct_1"}]"#);
        let hex: String = expected.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(key, hex);
        assert_eq!(key.len(), 64);
    }

    #[test]
    fn every_part_changes_the_key() {
        let a = args(&[("amount_eur", Data::number("15.00"))]);
        let b = args(&[("amount_eur", Data::number("15.01"))]);
        let base = idempotency_key("sha256:ab", "credit", &a).unwrap();
        assert_eq!(base, idempotency_key("sha256:ab", "credit", &a).unwrap());
        assert_ne!(base, idempotency_key("sha256:ac", "credit", &a).unwrap());
        assert_ne!(base, idempotency_key("sha256:ab", "credit2", &a).unwrap());
        assert_ne!(base, idempotency_key("sha256:ab", "credit", &b).unwrap());
        // No ambiguity between the parts: a name holding what looks like
        // the boundary is another key.
        assert_ne!(
            idempotency_key("a\",\"b", "c", &a).unwrap(),
            idempotency_key("a", "b\",\"c", &a).unwrap()
        );
    }
}
