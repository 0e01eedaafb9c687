//! The registry of diagnostic codes: one place that names every code, its
//! default severity and a one-line title. Codes are stable: never reuse or
//! renumber one. Each has an explain page in `docs/explain/CODE.md`.

use super::Severity;

macro_rules! codes {
    ($($code:ident $sev:ident $title:literal;)*) => {
        /// A stable diagnostic code.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code {
            $($code,)*
        }

        impl Code {
            /// Every code, in numeric order.
            pub const ALL: &'static [Code] = &[$(Code::$code,)*];

            /// The code as users see it: `E0106`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$code => stringify!($code),)*
                }
            }

            /// The severity a diagnostic with this code has unless a flag
            /// (such as `--deny-warnings`) changes how it is treated.
            pub fn severity(self) -> Severity {
                match self {
                    $(Code::$code => Severity::$sev,)*
                }
            }

            /// What the code means, in one line.
            pub fn title(self) -> &'static str {
                match self {
                    $(Code::$code => $title,)*
                }
            }
        }
    };
}

codes! {
    E0001 Error "syntax error: unexpected token or unclosed delimiter";
    E0002 Error "invalid literal: bad escape, unterminated string, bad number or date, or a file that is not UTF-8";
    E0003 Error "input exceeds a limit: size, nesting depth or step count";
    E0004 Error "malformed JSON plan, catalogue or policy: missing, unknown or ill-typed key";
    E0005 Error "a plan file declares a tool or a policy while the catalogue or the policy comes from configuration";
    E0101 Error "unknown tool";
    E0102 Error "unknown argument for this tool";
    E0103 Error "missing required argument";
    E0104 Error "duplicate step name, binding name or argument";
    E0105 Error "reference to a name no step binds";
    E0106 Error "forward reference: the name is bound by a later step";
    E0107 Error "self reference: a step refers to its own binding";
    E0108 Error "unknown step in `after`, or an ordering cycle";
    E0111 Error "step calls a tool whose catalogue schema could not be read";
    E0112 Error "a binding named `true`, `false` or `null`, which a reference reads as a value";
    E0116 Error "a `pre` over a recorded artifact that the progress record shows unmet";
    E0201 Error "argument type mismatch";
    E0202 Error "`bind` or `post` path does not exist in the tool's result type";
    E0203 Error "ill-typed probe";
    E0204 Error "argument literal outside its enum, or a date or decimal that does not parse";
    E0301 Error "tool not permitted by the policy";
    E0302 Error "actor lacks a required scope";
    E0303 Error "literal argument exceeds a policy ceiling";
    E0304 Error "`retry` on a tool that is not idempotent";
    E0305 Error "plan exceeds its budget";
    E0306 Error "a replan changes a completed step whose effect is not repeatable";
    E0307 Error "a replan repeats the call of a completed non-idempotent write under another name";
    E0308 Error "reference to an artifact whose step is invalid or failed in the progress record";
    E0309 Error "a reused step's recorded artifact does not fit the type its tool declares";
    E0310 Error "the policy loosens an effect or idempotence the operator's text catalogue states";
    E0311 Error "argument not in the policy's allowlist, or in its denylist";
    E0312 Error "argument does not match the policy's pattern";
    E0313 Error "untrusted data where the policy requires trusted data";
    E0314 Error "the calls of a tool add up to more than the policy's total";
    E0315 Error "more calls of a tool than the policy allows";
    E0601 Error "malformed progress record: missing, unknown or ill-typed key";
    E0602 Error "progress record of a version this planc does not read";
    E0603 Error "step recorded twice in a progress record";
    E0604 Error "a recorded step's fields contradict its status";
    E0605 Error "artifact recorded by two steps";
    E0701 Error "a construct the JSON form cannot express, converting text to JSON (`planc fmt --to json`)";
    E0702 Error "a name or value the text form cannot spell, converting JSON to text (`planc fmt --to plan`)";
    N0301 Note "step needs human approval";
    N0302 Note "ceiling over a referenced argument, enforced at dispatch by a guard";
    N0303 Note "step reused from the progress record: it completed with the same tool and arguments";
    N0304 Note "a total over referenced arguments, enforced at dispatch against the executor's ledger";
    N0307 Note "an argument fed by a result of no declared type, its type checked at dispatch";
    W0401 Warning "ambiguous pick: a bind takes one element of a list whose length is not pinned to 1";
    W0402 Warning "`write` step without a postcondition";
    W0403 Warning "binding never used";
    W0404 Warning "data from an untrusted tool flows into an argument of a `write` tool";
    W0405 Warning "a replan may repeat the call of a completed non-idempotent write: an argument is known only at dispatch";
    W0406 Warning "a replan's string literal copied from untrusted recorded data (laundered literal)";
    W0407 Warning "a policy rule names a tool the catalogue lacks, close to one it has";
    W0408 Warning "an invisible or bidirectional control character in a plan: what is shown is not what runs";
    W0501 Warning "catalogue schema not understood: the tool is imported with `any` there";
    W0502 Warning "catalogue schema read loosely: an unknown keyword or a constraint not enforced";
    W0509 Warning "a JSON plan read from inside a wrapper (`--lenient`): the text around it is ignored";
}

impl Code {
    /// Whether the code is a front end's: the file could not be read as
    /// written (syntax, a literal, a limit, the shape of a JSON document).
    /// Such a diagnostic is about the file alone, and stands even when the
    /// catalogue or policy it would be checked against is missing.
    pub fn is_syntax(self) -> bool {
        matches!(self, Code::E0001 | Code::E0002 | Code::E0003 | Code::E0004)
    }

    /// Whether the code marks code that does nothing (an unused binding):
    /// editors show it faded rather than underlined.
    pub fn is_unnecessary(self) -> bool {
        matches!(self, Code::W0403)
    }

    /// Whether the code is found by converting a file to the other form
    /// (`planc fmt --to`), not by checking it.
    pub fn is_conversion(self) -> bool {
        matches!(self, Code::E0701 | Code::E0702)
    }

    /// Reads a code as a user types it (`e0106`, `E0106`).
    pub fn parse(s: &str) -> Option<Code> {
        let s = s.trim();
        Code::ALL
            .iter()
            .copied()
            .find(|c| c.as_str().eq_ignore_ascii_case(s))
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_sorted_unique_and_prefixed_by_severity() {
        let names: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        let mut sorted = names.clone();
        sorted.sort_by_key(|n| &n[1..]);
        sorted.dedup();
        assert_eq!(names.len(), sorted.len());
        for c in Code::ALL {
            let prefix = match c.severity() {
                Severity::Error => 'E',
                Severity::Warning => 'W',
                Severity::Note => 'N',
            };
            assert!(c.as_str().starts_with(prefix), "{c}");
            assert_eq!(Code::parse(&c.as_str().to_lowercase()), Some(*c));
        }
    }

    #[test]
    fn syntax_codes_are_the_front_ends_errors() {
        let syntax: Vec<&str> = Code::ALL
            .iter()
            .filter(|c| c.is_syntax())
            .map(|c| c.as_str())
            .collect();
        assert_eq!(syntax, ["E0001", "E0002", "E0003", "E0004"]);
        assert!(
            Code::ALL
                .iter()
                .filter(|c| c.is_unnecessary())
                .all(|c| c.severity() != Severity::Error)
        );
    }
}
