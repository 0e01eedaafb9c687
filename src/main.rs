//! The `planc` command line: a thin shell over the library. It reads files,
//! finds `planc.toml`, runs the pipeline and prints diagnostics or IR; all
//! the compiling happens in the library.

use std::process::ExitCode;

use clap::Parser;

mod cli;

use cli::{Cli, Failure};

/// A compilation allocates many small values (names, nodes, diagnostics)
/// and frees them all at once; mimalloc does both about twice as fast as
/// the system allocator here, which halves the language server's time from
/// an edit to its diagnostics on a long plan (`tests/lsp_e2e.rs`).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match cli::dispatch(cli.command) {
        Ok(code) => code,
        Err(Failure(msg)) => {
            eprintln!("planc: error: {msg}");
            ExitCode::from(2)
        }
    }
}
