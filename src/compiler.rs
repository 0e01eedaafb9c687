//! A catalogue and a policy read once, then many plans checked against
//! them: what a long-running agent loop, the Python package or a server
//! calls for each plan it is handed.
//!
//! [`Compiler::new`] reads the catalogue and policy sources (text or JSON,
//! told apart by their names as on the command line) and keeps their syntax
//! trees and the diagnostics they gave; [`Compiler::check`] reads one plan
//! text and checks it against them without reading them again. A
//! `Compiler` is immutable once built, so one value serves every thread
//! (`Send + Sync`).
//!
//! Roles come from where a text is given: the catalogue and policy from the
//! configuration, the plan from the caller. A JSON plan text is always read
//! as a plan, never as a catalogue or policy of its own.

use crate::check;
use crate::diagnostics::{self, Diagnostic};
use crate::driver::{self, Role};
use crate::ir::PlanIr;
use crate::source::{FileId, SourceKind, SourceMap};
use crate::syntax::{self, ast};

/// A catalogue and a policy, read once.
#[derive(Clone, Debug)]
pub struct Compiler {
    sources: SourceMap,
    catalog_files: Vec<FileId>,
    policy_files: Vec<FileId>,
    catalog: Vec<ast::Module>,
    policy: Vec<ast::Module>,
    actor: Option<Vec<String>>,
    diagnostics: Vec<Diagnostic>,
}

/// What checking one plan text gave.
#[derive(Clone, Debug)]
pub struct Checked {
    /// The catalogue and policy files and the plan's (last), for the
    /// renderers of [`crate::diagnostics::render`].
    pub sources: SourceMap,
    /// The plan text's file in `sources`.
    pub file: FileId,
    /// The plan's diagnostics, sorted by position. Those of the catalogue
    /// and policy are [`Compiler::diagnostics`], reported once.
    pub diagnostics: Vec<Diagnostic>,
    /// The IR of each plan the text declares, when neither it nor the
    /// catalogue and policy have an error.
    pub ir: Option<Vec<PlanIr>>,
}

impl Compiler {
    /// Reads the catalogue sources and the policy source, each a
    /// `(name, text)`; a name ending in `.json` is read as JSON. `actor`
    /// replaces the scopes of the policy's `actor` line when given.
    pub fn new(
        catalog: &[(&str, &str)],
        policy: Option<(&str, &str)>,
        actor: Option<Vec<String>>,
    ) -> Compiler {
        let mut sources = SourceMap::new();
        let mut diagnostics = Vec::new();
        let mut files = Vec::new();
        let mut read = |name: &str, text: &str, role: Role| {
            let file = sources.add(name, text);
            files.push(file);
            let (module, diags) = driver::parse(&mut sources, file, role);
            diagnostics.extend(diags);
            module
        };
        let catalog: Vec<ast::Module> = catalog
            .iter()
            .map(|(name, text)| read(name, text, Role::Catalog))
            .collect();
        let policy: Vec<ast::Module> = policy
            .iter()
            .map(|(name, text)| read(name, text, Role::Policy))
            .collect();
        let (catalog_files, policy_files) = files.split_at(catalog.len().min(files.len()));
        let (catalog_files, policy_files) = (catalog_files.to_vec(), policy_files.to_vec());
        // What the catalogue and policy say on their own: checked once,
        // with no plan.
        let catalogs: Vec<&ast::Module> = catalog.iter().collect();
        let policies: Vec<&ast::Module> = policy.iter().collect();
        let checked = check::check(&check::CheckInput {
            plans: &[],
            catalog: &catalogs,
            policy: &policies,
            actor: actor.as_deref(),
            syntax_errors: &[],
            roles_fixed: true,
            progress: None,
        });
        diagnostics.extend(checked.diagnostics);
        diagnostics::sort(&mut diagnostics);
        Compiler {
            sources,
            catalog_files,
            policy_files,
            catalog,
            policy,
            actor,
            diagnostics,
        }
    }

    /// The diagnostics of the catalogue and the policy, sorted.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The catalogue and policy files, for rendering [`Self::diagnostics`].
    pub fn sources(&self) -> &SourceMap {
        &self.sources
    }

    /// The planner's schema of this catalogue and policy (`planc schema`),
    /// in `dialect`; `tool` wraps it as the `submit_plan` tool definition.
    /// The `Err` says why there is none: the catalogue or policy has
    /// errors, or the policy permits no tool.
    pub fn schema(
        &self,
        dialect: crate::plan_schema::Dialect,
        tool: bool,
    ) -> Result<serde_json::Value, String> {
        if self.diagnostics.iter().any(Diagnostic::is_error) {
            return Err(
                "the catalogue or the policy has errors (see the compiler's diagnostics)".into(),
            );
        }
        let catalogs: Vec<&ast::Module> = self.catalog.iter().collect();
        let policies: Vec<&ast::Module> = self.policy.iter().collect();
        let checked = check::check(&check::CheckInput {
            plans: &[],
            catalog: &catalogs,
            policy: &policies,
            actor: self.actor.as_deref(),
            syntax_errors: &[],
            roles_fixed: true,
            progress: None,
        });
        let schema = crate::plan_schema::plan_schema(
            &checked.catalog,
            checked.policy.as_ref(),
            &checked.actor,
            dialect,
        )?;
        Ok(if tool {
            crate::plan_schema::submit_plan_tool(schema, dialect)
        } else {
            schema
        })
    }

    /// Checks one plan text, named `name` in diagnostics, in the form
    /// `kind`, against the catalogue and policy; lowers it to IR when
    /// nothing has an error.
    pub fn check(&self, name: &str, text: &str, kind: SourceKind) -> Checked {
        let mut sources = self.sources.clone();
        let file = sources.add_with_kind(name, text, kind);
        let (module, mut diags) = match kind {
            SourceKind::Text => syntax::parse_text(file, text),
            SourceKind::Json => {
                let (module, diags, pointers) = syntax::read_json_plan(file, text);
                if let Some(f) = sources.get_mut(file) {
                    f.set_pointers(pointers);
                }
                (module, diags)
            }
        };
        // The roles are fixed: a `tool` or `policy` declaration in the plan
        // text is E0005 and joins nothing.
        let job = driver::Job {
            sources,
            plans: vec![file],
            catalog: self.catalog_files.clone(),
            policy: self.policy_files.clone(),
            ..driver::Job::default()
        };
        driver::misplaced(&job, &module, false, false, &mut diags);
        let sources = job.sources;
        let syntax_errors: Vec<_> = diags
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.span)
            .collect();
        let catalogs: Vec<&ast::Module> = self.catalog.iter().collect();
        let policies: Vec<&ast::Module> = self.policy.iter().collect();
        let checked = check::check(&check::CheckInput {
            plans: &[&module],
            catalog: &catalogs,
            policy: &policies,
            actor: self.actor.as_deref(),
            syntax_errors: &syntax_errors,
            roles_fixed: true,
            progress: None,
        });
        // The catalogue's and policy's own diagnostics come again with
        // every check; they were reported once, by `new`.
        diags.extend(
            checked
                .diagnostics
                .iter()
                .filter(|d| d.span.file == file)
                .cloned(),
        );
        diagnostics::sort(&mut diags);
        let clean = !diags
            .iter()
            .chain(&self.diagnostics)
            .any(Diagnostic::is_error);
        let ir = if clean {
            checked
                .plans
                .iter()
                .map(|plan| crate::ir::lower(plan, &sources))
                .collect::<Result<Vec<_>, String>>()
                .ok()
        } else {
            None
        };
        Checked {
            sources,
            file,
            diagnostics: diags,
            ir,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const _: fn() = || {
        fn shareable<T: Send + Sync>() {}
        shareable::<Compiler>();
    };

    const TOOLS: &str = "tool a.get(id: string) -> { n: int } read\n";
    const POLICY: &str = "policy p {\n    actor [x:read]\n    a.get requires [x:read]\n}\n";

    fn compiler() -> Compiler {
        Compiler::new(
            &[("tools.plan", TOOLS)],
            Some(("policy.plan", POLICY)),
            None,
        )
    }

    #[test]
    fn one_compiler_checks_many_plans() {
        let c = compiler();
        assert!(c.diagnostics().is_empty(), "{:?}", c.diagnostics());
        let good = r#"{"steps": [{"tool": "a.get", "args": {"id": "x"}}]}"#;
        let ok = c.check("plan.json", good, SourceKind::Json);
        assert!(ok.diagnostics.is_empty(), "{:?}", ok.diagnostics);
        assert_eq!(ok.ir.map(|ir| ir.len()), Some(1));
        let bad = r#"{"steps": [{"tool": "a.gte", "args": {"id": "x"}}]}"#;
        let no = c.check("plan.json", bad, SourceKind::Json);
        let codes: Vec<&str> = no.diagnostics.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(codes, ["E0101"]);
        assert!(no.ir.is_none());
    }

    #[test]
    fn a_json_plan_text_is_read_as_a_plan() {
        let c = compiler();
        let catalogue = r#"{"tools": []}"#;
        let checked = c.check("plan.json", catalogue, SourceKind::Json);
        let codes: Vec<&str> = checked
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect();
        assert!(
            !codes.is_empty() && codes.iter().all(|c| *c == "E0004"),
            "{codes:?}"
        );
    }

    #[test]
    fn a_plan_text_declares_no_tools() {
        let text = "tool a.get(id: string) -> { m: int } read\nplan p \"x\" {\n    step s = a.get(id: \"x\")\n}\n";
        let checked = compiler().check("plan.plan", text, SourceKind::Text);
        let codes: Vec<&str> = checked
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect();
        assert!(codes.contains(&"E0005"), "{codes:?}");
    }
}
