//! The transport: lsp-server's messages over stdio, with a reader of its
//! own that skips a malformed frame instead of ending the session, and
//! reads a document's notification without lsp-server's detour; after the
//! handshake the server writes its messages itself.

use lsp_server::{Connection, Message, Notification};
use lsp_types as lsp;
use lsp_types::notification::Notification as _;

/// Runs the server over standard input and output until the client says
/// `exit`. The error is a message for standard error.
///
/// The transport is lsp-server's framing with three differences: a frame
/// whose body is not a JSON-RPC message (or whose header is malformed) is
/// reported to the client as a log message and skipped, where lsp-server's
/// own stdio reader would stop reading and end the session; a
/// notification is read straight into its fields ([`message`]); and once
/// the handshake is done, the thread that checks writes the server's
/// messages to standard output itself, without lsp-server's writer thread
/// (one thread fewer to wake between an edit and its diagnostics).
pub fn run_stdio(overrides: super::Overrides) -> Result<(), String> {
    let (to_client, outgoing) = crossbeam_channel::bounded::<Message>(0);
    let (incoming, from_client) = crossbeam_channel::bounded::<Message>(0);
    let writer = std::thread::Builder::new()
        .name("planc-lsp-writer".to_string())
        .spawn(move || {
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            outgoing.into_iter().try_for_each(|m| m.write(&mut out))
        })
        .map_err(|e| format!("cannot start the writer thread: {e}"))?;
    std::thread::Builder::new()
        .name("planc-lsp-reader".to_string())
        .spawn(move || read_messages(&incoming))
        .map_err(|e| format!("cannot start the reader thread: {e}"))?;
    let connection = Connection {
        sender: to_client,
        receiver: from_client,
    };
    let params = super::handshake(&connection);
    let Connection { sender, receiver } = connection;
    // The writer thread writes the handshake's answer; once it has ended
    // (its sender gone, every message it took written), the server writes
    // to standard output itself. The reader may still be waiting on
    // standard input, and ends with the process.
    drop(sender);
    match writer.join() {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(format!("cannot write to the client: {e}")),
        Err(_) => return Err("the connection's writer failed".to_string()),
    }
    super::serve(
        &receiver,
        super::Outbox::Stdout(std::io::stdout()),
        &params?,
        overrides,
    )
}

/// Reads framed messages from standard input until its end or `exit`.
fn read_messages(incoming: &crossbeam_channel::Sender<Message>) {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut body = Vec::new();
    loop {
        match read_frame(&mut input, &mut body, MAX_BODY).and_then(|()| message(&body)) {
            Ok(msg) => {
                let exit = matches!(&msg, Message::Notification(n) if n.method == lsp::notification::Exit::METHOD);
                if incoming.send(msg).is_err() || exit {
                    return;
                }
            }
            // Each such error has consumed what it complains about (a
            // header line, a whole body), so reading goes on after it.
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                let mut why = e.to_string();
                if let Some((cut, _)) = why.char_indices().nth(300) {
                    why.truncate(cut);
                    why.push('…');
                }
                // The server logs it to the client (see `Server::notification`).
                let _ = incoming.send(Message::Notification(Notification::new(
                    MALFORMED.to_string(),
                    serde_json::json!({ "message": why }),
                )));
            }
            // The end of the input, or it failed.
            Err(_) => return,
        }
    }
}

/// The largest body a frame may have: a document at the front ends' limit
/// with every byte written as an escape, and room for the message around it.
const MAX_BODY: usize = 6 * planc_lang::limits::MAX_INPUT_BYTES + (1 << 20);

/// The longest header line read: LSP's headers are `Content-Length` and
/// `Content-Type`, a few dozen bytes.
const MAX_HEADER: u64 = 4096;

fn invalid(why: impl std::fmt::Display) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, why.to_string())
}

/// Reads one frame's body into `body`: the header lines (`Name: value`,
/// each ending `\r\n`, `Content-Length` required), a blank line, and the
/// body, as lsp-server frames them. `UnexpectedEof` at the end of the
/// input; `InvalidData` for a malformed header or a body longer than `max`
/// bytes, which is then skipped.
fn read_frame(
    input: &mut impl std::io::BufRead,
    body: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<()> {
    use std::io::{BufRead as _, Read as _};
    let mut size = None;
    let mut line = String::new();
    loop {
        line.clear();
        if (&mut *input).take(MAX_HEADER).read_line(&mut line)? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        if !line.ends_with('\n') && line.len() as u64 >= MAX_HEADER {
            // The rest of an overlong line is read past, not held.
            input.skip_until(b'\n')?;
            return Err(invalid(format_args!(
                "a header line longer than {MAX_HEADER} bytes"
            )));
        }
        let Some(header) = line.strip_suffix("\r\n") else {
            return Err(invalid(format_args!("malformed header: {line:?}")));
        };
        if header.is_empty() {
            break;
        }
        let Some((name, value)) = header.split_once(": ") else {
            return Err(invalid(format_args!("malformed header: {header:?}")));
        };
        if name.eq_ignore_ascii_case("Content-Length") {
            size = Some(value.parse::<usize>().map_err(invalid)?);
        }
    }
    let size = size.ok_or_else(|| invalid("no Content-Length"))?;
    if size > max {
        std::io::copy(&mut input.take(size as u64), &mut std::io::sink())?;
        return Err(invalid(format_args!(
            "a body of {size} bytes, more than the {max} a message may have"
        )));
    }
    // A new buffer a frame: one long document does not keep its size held.
    *body = vec![0; size];
    input.read_exact(body)
}

/// The message a frame's body holds. A notification (a `method` and no
/// `id`: every document's text comes in one) is read into a `Value` once
/// and its fields moved out; anything else goes through lsp-server's own
/// reading, whose untagged enum copies the body's strings once for each
/// kind of message it tries.
fn message(body: &[u8]) -> std::io::Result<Message> {
    let value: serde_json::Value = serde_json::from_slice(body)
        .map_err(|e| invalid(format_args!("malformed LSP payload: {e}")))?;
    if let serde_json::Value::Object(mut fields) = value {
        // A notification: no `id`, a string `method`. Anything else goes
        // whole to lsp-server's reader, which says what is wrong with it.
        if !fields.contains_key("id")
            && fields
                .get("method")
                .is_some_and(serde_json::Value::is_string)
            && let Some(serde_json::Value::String(method)) = fields.remove("method")
        {
            let params = fields.remove("params").unwrap_or_default();
            return Ok(Message::Notification(Notification { method, params }));
        }
        return serde_json::from_value(serde_json::Value::Object(fields))
            .map_err(|e| invalid(format_args!("malformed LSP payload: {e}")));
    }
    Err(invalid("malformed LSP payload: not an object"))
}
/// What the reader passes on in place of a message it could not read.
pub(super) const MALFORMED: &str = "planc/malformedMessage";

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8]) -> Vec<Result<Message, String>> {
        frames_up_to(input, MAX_BODY)
    }

    fn frames_up_to(input: &[u8], max: usize) -> Vec<Result<Message, String>> {
        let mut input = std::io::BufReader::new(input);
        let mut body = Vec::new();
        let mut out = Vec::new();
        loop {
            match read_frame(&mut input, &mut body, max).and_then(|()| message(&body)) {
                Ok(m) => out.push(Ok(m)),
                Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                    out.push(Err(e.to_string()))
                }
                Err(_) => return out,
            }
        }
    }

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    #[test]
    fn each_kind_of_message_reads_as_lsp_server_reads_it() {
        let bodies = [
            r#"{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"text":"a\nb"}}"#,
            r#"{"jsonrpc":"2.0","method":"initialized"}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"shutdown"}"#,
            r#"{"jsonrpc":"2.0","id":"x","method":"textDocument/hover","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":null}"#,
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"no"}}"#,
        ];
        let input: String = bodies.iter().map(|b| frame(b)).collect();
        let got = frames(input.as_bytes());
        assert_eq!(got.len(), bodies.len());
        for (body, got) in bodies.iter().zip(got) {
            let want: Message = serde_json::from_str(body).unwrap();
            assert_eq!(format!("{:?}", got.unwrap()), format!("{want:?}"), "{body}");
        }
    }

    #[test]
    fn a_malformed_frame_is_reported_and_the_next_one_read() {
        let after = frame(r#"{"jsonrpc":"2.0","method":"exit"}"#);
        for bad in [
            frame("hello"),
            frame("[1, 2]"),
            frame(r#"{"foo": 1}"#),
            frame(r#"{"method": 5}"#),
            "Content-Type: text\r\n\r\n".to_string(),
            "Content-Length: many\r\n".to_string(),
            "Content-Length 5\r\n".to_string(),
        ] {
            let got = frames(format!("{bad}{after}").as_bytes());
            assert!(got.first().is_some_and(|m| m.is_err()), "{bad:?}: {got:?}");
            assert!(
                matches!(got.last(), Some(Ok(Message::Notification(n))) if n.method == "exit"),
                "{bad:?}: {got:?}"
            );
        }
    }

    #[test]
    fn what_is_not_a_notification_is_refused_in_lsp_servers_words() {
        for body in [
            r#"{"jsonrpc":"2.0","method":5}"#,
            r#"{"jsonrpc":"2.0","method":null,"params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":5}"#,
        ] {
            let value: serde_json::Value = serde_json::from_str(body).unwrap();
            let want = serde_json::from_value::<Message>(value).unwrap_err();
            let got = message(body.as_bytes()).unwrap_err();
            assert_eq!(
                got.to_string(),
                format!("malformed LSP payload: {want}"),
                "{body}"
            );
        }
    }

    #[test]
    fn a_body_too_long_is_skipped_without_being_held() {
        // A client claiming more than a message may have: its bytes are
        // read past, not allocated, and the next frame is read.
        let size = 100_001;
        let mut input = format!("Content-Length: {size}\r\n\r\n").into_bytes();
        input.resize(input.len() + size, b' ');
        input.extend(frame(r#"{"jsonrpc":"2.0","method":"exit"}"#).as_bytes());
        let got = frames_up_to(&input, 100_000);
        assert!(
            got.first()
                .is_some_and(|m| m.as_ref().is_err_and(|e| e.contains("more than"))),
            "{got:?}"
        );
        assert!(matches!(got.last(), Some(Ok(Message::Notification(_)))));
        // A header line with no end in sight is read past in one error.
        let mut input = b"Content-Length: ".to_vec();
        input.resize(input.len() + 1_000_000, b'9');
        input.extend(b"\r\n\r\n");
        input.extend(frame(r#"{"jsonrpc":"2.0","method":"exit"}"#).as_bytes());
        let got = frames(&input);
        assert!(
            matches!(&got[..], [Err(e), Err(_), Ok(Message::Notification(_))] if e.contains("longer than")),
            "{got:?}"
        );
        // A frame cut short ends the reading.
        assert!(frames(b"Content-Length: 10\r\n\r\n{}").is_empty());
    }
}
