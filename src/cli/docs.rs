//! The commands that print documentation: `planc explain`, `planc
//! completions` and `planc man`.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use clap::CommandFactory;

use planc::Code;
use planc::project;

use super::Failure;
use super::args::Cli;

/// `planc explain` with no code: every code, its severity and its title,
/// one a line.
pub fn explain_all() -> Result<ExitCode, Failure> {
    let mut out = String::new();
    for &code in Code::ALL {
        let severity = code.severity().as_str();
        out.push_str(&format!(
            "{}  {severity:<7}  {}\n",
            code.as_str(),
            code.title()
        ));
    }
    out.push_str(
        "\n`planc explain CODE` prints a code's page, with a failing and a fixed example.\n",
    );
    std::io::stdout()
        .write_all(out.as_bytes())
        .map_err(|e| Failure(format!("cannot write the list: {e}")))?;
    Ok(ExitCode::SUCCESS)
}

/// `planc completions SHELL`: the completion script, from the clap
/// definitions above.
pub fn completions(shell: clap_complete::Shell) -> Result<ExitCode, Failure> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "planc", &mut out);
    std::io::stdout()
        .write_all(&out)
        .map_err(|e| Failure(format!("cannot write the completions: {e}")))?;
    Ok(ExitCode::SUCCESS)
}

/// `planc man`: planc(1) on standard output, or with a folder, planc(1)
/// and a page per command (`planc-check.1`, ...) written into it.
pub fn man(dir: Option<&Path>) -> Result<ExitCode, Failure> {
    let render = |cmd: clap::Command| {
        let page = clap_mangen::Man::new(cmd);
        let mut out = Vec::new();
        page.render(&mut out)
            .map(|()| (page.get_filename(), out))
            .map_err(|e| Failure(format!("cannot render the manual page: {e}")))
    };
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    let Some(dir) = dir else {
        let (_, page) = render(cmd)?;
        std::io::stdout()
            .write_all(&page)
            .map_err(|e| Failure(format!("cannot write the manual page: {e}")))?;
        return Ok(ExitCode::SUCCESS);
    };
    std::fs::create_dir_all(dir)
        .map_err(|e| Failure(format!("cannot create `{}`: {e}", dir.display())))?;
    let mut commands: Vec<clap::Command> = cmd.get_subcommands().cloned().collect();
    commands.push(cmd);
    for command in commands {
        let (name, page) = render(command)?;
        project::write_atomic(&dir.join(name), &page).map_err(Failure)?;
    }
    Ok(ExitCode::SUCCESS)
}

pub fn explain(code: &str) -> Result<ExitCode, Failure> {
    let Some(code) = Code::parse(code) else {
        return Err(Failure(format!(
            "`{code}` is not a planc diagnostic code (they look like E0106, W0401 or N0302)"
        )));
    };
    print!("{}", planc::diagnostics::explain::page(code));
    Ok(ExitCode::SUCCESS)
}
