//! `file:` URIs and paths. The server names the catalogue and policy files
//! it reads from disk with URIs of its own making, and finds the path of an
//! open document from the URI the client gave; both directions live here.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use lsp_types::Uri;

/// The path a `file:` URI names, or `None` for another scheme (such as an
/// editor's `untitled:` buffer) or a URI naming a remote host.
pub fn to_path(uri: &Uri) -> Option<PathBuf> {
    let s = uri.as_str();
    let rest = strip_prefix_ignore_case(s, "file:")?;
    let path = match rest.strip_prefix("//") {
        Some(after) => {
            let slash = after.find('/').unwrap_or(after.len());
            let (host, path) = after.split_at(slash);
            if !host.is_empty() && !host.eq_ignore_ascii_case("localhost") {
                return None;
            }
            path
        }
        None => rest,
    };
    // Neither a query nor a fragment belongs to a file's path.
    let path = path.split(['?', '#']).next().unwrap_or("");
    if !path.starts_with('/') {
        return None;
    }
    let decoded = percent_decode(path)?;
    Some(PathBuf::from(windows_drive(&decoded)))
}

/// A `file:` URI for an absolute path; `None` for a relative one.
pub fn from_path(path: &Path) -> Option<Uri> {
    let text = path.to_str()?.replace('\\', "/");
    let text = if text.starts_with('/') {
        text
    } else if text.as_bytes().get(1) == Some(&b':') {
        // `C:/x` on Windows.
        format!("/{text}")
    } else {
        return None;
    };
    let out = format!("file://{}", crate::project::encode_uri_path(&text));
    Uri::from_str(&out).ok()
}

fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    if head.eq_ignore_ascii_case(prefix) {
        s.get(prefix.len()..)
    } else {
        None
    }
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// `/C:/x` is `C:/x` on Windows; elsewhere the path stays as it is.
fn windows_drive(path: &str) -> String {
    if cfg!(windows) {
        let b = path.as_bytes();
        if b.len() >= 3 && b.get(2) == Some(&b':') && b.get(1).is_some_and(u8::is_ascii_alphabetic)
        {
            return path.get(1..).unwrap_or(path).to_string();
        }
    }
    path.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri(s: &str) -> Uri {
        Uri::from_str(s).unwrap()
    }

    #[test]
    fn round_trips_with_escapes() {
        let p = Path::new("/tmp/my plans/crédit #1.plan");
        let u = from_path(p).unwrap();
        assert_eq!(u.as_str(), "file:///tmp/my%20plans/cr%C3%A9dit%20%231.plan");
        assert_eq!(to_path(&u).unwrap(), p);
    }

    #[test]
    fn reads_what_editors_send() {
        assert_eq!(
            to_path(&uri("file:///a/b%3Ac.plan")).unwrap(),
            PathBuf::from("/a/b:c.plan")
        );
        assert_eq!(
            to_path(&uri("file://localhost/a/b.plan")).unwrap(),
            PathBuf::from("/a/b.plan")
        );
        assert_eq!(to_path(&uri("untitled:Untitled-1")), None);
        assert_eq!(to_path(&uri("file://server/share/a.plan")), None);
        assert_eq!(from_path(Path::new("relative/a.plan")), None);
    }
}
