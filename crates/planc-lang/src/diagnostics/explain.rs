//! The explain pages: one Markdown page per code, kept in `docs/explain/`
//! and compiled into the binary, so `planc explain CODE` works anywhere. A
//! test compiles each page's failing and fixed examples.

use super::Code;

/// The page for `code`. The match is exhaustive: a new code does not
/// compile until its page is written.
pub fn page(code: Code) -> &'static str {
    match code {
        Code::E0001 => include_str!("../../docs/explain/E0001.md"),
        Code::E0002 => include_str!("../../docs/explain/E0002.md"),
        Code::E0003 => include_str!("../../docs/explain/E0003.md"),
        Code::E0004 => include_str!("../../docs/explain/E0004.md"),
        Code::E0005 => include_str!("../../docs/explain/E0005.md"),
        Code::E0101 => include_str!("../../docs/explain/E0101.md"),
        Code::E0102 => include_str!("../../docs/explain/E0102.md"),
        Code::E0103 => include_str!("../../docs/explain/E0103.md"),
        Code::E0104 => include_str!("../../docs/explain/E0104.md"),
        Code::E0105 => include_str!("../../docs/explain/E0105.md"),
        Code::E0106 => include_str!("../../docs/explain/E0106.md"),
        Code::E0107 => include_str!("../../docs/explain/E0107.md"),
        Code::E0108 => include_str!("../../docs/explain/E0108.md"),
        Code::E0111 => include_str!("../../docs/explain/E0111.md"),
        Code::E0112 => include_str!("../../docs/explain/E0112.md"),
        Code::E0116 => include_str!("../../docs/explain/E0116.md"),
        Code::E0201 => include_str!("../../docs/explain/E0201.md"),
        Code::E0202 => include_str!("../../docs/explain/E0202.md"),
        Code::E0203 => include_str!("../../docs/explain/E0203.md"),
        Code::E0204 => include_str!("../../docs/explain/E0204.md"),
        Code::E0301 => include_str!("../../docs/explain/E0301.md"),
        Code::E0302 => include_str!("../../docs/explain/E0302.md"),
        Code::E0303 => include_str!("../../docs/explain/E0303.md"),
        Code::E0304 => include_str!("../../docs/explain/E0304.md"),
        Code::E0305 => include_str!("../../docs/explain/E0305.md"),
        Code::E0306 => include_str!("../../docs/explain/E0306.md"),
        Code::E0307 => include_str!("../../docs/explain/E0307.md"),
        Code::E0308 => include_str!("../../docs/explain/E0308.md"),
        Code::E0309 => include_str!("../../docs/explain/E0309.md"),
        Code::E0310 => include_str!("../../docs/explain/E0310.md"),
        Code::E0311 => include_str!("../../docs/explain/E0311.md"),
        Code::E0312 => include_str!("../../docs/explain/E0312.md"),
        Code::E0313 => include_str!("../../docs/explain/E0313.md"),
        Code::E0314 => include_str!("../../docs/explain/E0314.md"),
        Code::E0315 => include_str!("../../docs/explain/E0315.md"),
        Code::N0301 => include_str!("../../docs/explain/N0301.md"),
        Code::N0302 => include_str!("../../docs/explain/N0302.md"),
        Code::N0303 => include_str!("../../docs/explain/N0303.md"),
        Code::N0304 => include_str!("../../docs/explain/N0304.md"),
        Code::N0307 => include_str!("../../docs/explain/N0307.md"),
        Code::W0401 => include_str!("../../docs/explain/W0401.md"),
        Code::W0402 => include_str!("../../docs/explain/W0402.md"),
        Code::W0403 => include_str!("../../docs/explain/W0403.md"),
        Code::W0404 => include_str!("../../docs/explain/W0404.md"),
        Code::W0405 => include_str!("../../docs/explain/W0405.md"),
        Code::E0601 => include_str!("../../docs/explain/E0601.md"),
        Code::E0602 => include_str!("../../docs/explain/E0602.md"),
        Code::E0603 => include_str!("../../docs/explain/E0603.md"),
        Code::E0604 => include_str!("../../docs/explain/E0604.md"),
        Code::E0605 => include_str!("../../docs/explain/E0605.md"),
        Code::E0701 => include_str!("../../docs/explain/E0701.md"),
        Code::E0702 => include_str!("../../docs/explain/E0702.md"),
        Code::W0406 => include_str!("../../docs/explain/W0406.md"),
        Code::W0407 => include_str!("../../docs/explain/W0407.md"),
        Code::W0408 => include_str!("../../docs/explain/W0408.md"),
        Code::W0501 => include_str!("../../docs/explain/W0501.md"),
        Code::W0502 => include_str!("../../docs/explain/W0502.md"),
        Code::W0509 => include_str!("../../docs/explain/W0509.md"),
    }
}

/// The fenced example blocks of a page: `(failing, fixed)`, the first code
/// block under `## Failing` and under `## Fixed`.
pub fn examples(page: &str) -> (Option<String>, Option<String>) {
    (
        section_block(page, "## Failing"),
        section_block(page, "## Fixed"),
    )
}

/// The files a page's examples run against, when they need their own: the
/// block under `## Configured` (a `.plan` file named as both catalogue and
/// policy, as `planc.toml` would name it: E0005 exists only when the roles
/// are fixed by configuration), and the JSON blocks under `## Catalogue`
/// and `## Policy`, and the progress record under `## Progress` (for the
/// codes of a replan checked against what already ran).
#[derive(Clone, Debug, Default)]
pub struct Context {
    pub configured: Option<String>,
    pub catalogue: Option<String>,
    pub policy: Option<String>,
    /// A progress record the examples are checked against (`## Progress`).
    pub progress: Option<String>,
}

/// The [`Context`] of a page.
pub fn context(page: &str) -> Context {
    Context {
        configured: section_block(page, "## Configured"),
        catalogue: section_block(page, "## Catalogue"),
        policy: section_block(page, "## Policy"),
        progress: section_block(page, "## Progress"),
    }
}

fn section_block(page: &str, heading: &str) -> Option<String> {
    let after = page.split_once(heading)?.1;
    let section = after.split("\n## ").next().unwrap_or(after);
    let start = section.find("```")?;
    let rest = section.get(start + 3..)?;
    let body_start = rest.find('\n')? + 1;
    let body = rest.get(body_start..)?;
    let end = body.find("\n```")?;
    Some(body.get(..end + 1)?.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extracts_blocks() {
        let page = "# X\n\ntext\n\n## Failing\n\n```plan\nbad\n```\n\n## Fixed\n\n```plan\ngood\nline\n```\n";
        assert_eq!(
            examples(page),
            (Some("bad\n".into()), Some("good\nline\n".into()))
        );
    }
}
