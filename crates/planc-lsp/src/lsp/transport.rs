//! The transport: lsp-server's framing over stdio, with a reader of its own
//! that skips a malformed frame instead of ending the session.

use lsp_server::{Connection, Message, Notification};
use lsp_types as lsp;
use lsp_types::notification::Notification as _;

/// Runs the server over standard input and output until the client says
/// `exit`. The error is a message for standard error.
///
/// The transport is lsp-server's framing with one difference: a frame
/// whose body is not a JSON-RPC message (or whose header is malformed) is
/// reported to the client as a log message and skipped, where lsp-server's
/// own stdio reader would stop reading and end the session.
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
    let result = super::run_with(&connection, overrides);
    drop(connection);
    // The writer ends now that its sender is gone; the reader may still be
    // waiting on standard input, and ends with the process.
    match writer.join() {
        Ok(Ok(())) | Ok(Err(_)) => result,
        Err(_) => Err("the connection's writer failed".to_string()),
    }
}

/// Reads framed messages from standard input until its end or `exit`.
fn read_messages(incoming: &crossbeam_channel::Sender<Message>) {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    loop {
        match Message::read(&mut input) {
            Ok(Some(msg)) => {
                let exit = matches!(&msg, Message::Notification(n) if n.method == lsp::notification::Exit::METHOD);
                if incoming.send(msg).is_err() || exit {
                    return;
                }
            }
            Ok(None) => return,
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
            Err(_) => return,
        }
    }
}

/// What the reader passes on in place of a message it could not read.
pub(super) const MALFORMED: &str = "planc/malformedMessage";
