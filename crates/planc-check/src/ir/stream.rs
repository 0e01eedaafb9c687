//! The IR of one plan written as the plan is checked (`planc compile` with
//! `-o`): each step is lowered and written once its model is checked, and
//! the model goes (`check::StepModels::Lower`), so that a long plan's
//! models and IR are never whole in memory (`docs/performance.md`, "Where
//! the memory goes").
//!
//! The bytes are those [`super::write_json`] writes of the whole IR on one
//! line. Two things are known only at the end: the members after the steps
//! (the schedule, the approvals, the scopes), written then, and the
//! fingerprint, which comes second in the text and is the digest of a
//! canonical text in which the schedule and the scopes come before the
//! steps. So the head is written with a fingerprint of zeros, and each
//! step's canonical text is kept apart (in a second file). When the plan
//! is checked (`StepSink::end`), the members after the steps are written,
//! and the digest reads the head's members, then the kept texts, then the
//! rest; once the caller knows the whole check found nothing that stops
//! it, [`IrStream::finish`] writes the head again over itself, the same
//! length, with the fingerprint. The head written again must be the head
//! first written but for the fingerprint, the plan must have had every
//! step lowered, and it must be the one plan checked: otherwise nothing is
//! to be kept.
//!
//! Both files are read back before the IR is kept: the steps' texts as the
//! digest reads them, the IR once its head is written again. Each must be
//! what was written (the same SHA-256 as the bytes written), so that one
//! who edits either file while the plan is compiled gets a refusal from
//! `compile`, not an IR whose fingerprint is not its own
//! (`docs/threat-model.md`).

use std::io::{self, Read, Seek, Write};

use crate::check::{Binding, CheckedPlan, CheckedStep, StepSink};
use crate::source::{LineCursor, SourceMap};
use planc_exec::ir::fingerprint::RunningDigest;
use planc_exec::ir::{self, Str};

/// A file [`IrStream`] writes and goes back in: both the IR's and the
/// one of the steps' canonical texts.
pub trait Scratch: Read + Write + Seek {
    /// Cuts the file to its first `len` bytes.
    fn truncate(&mut self, len: u64) -> io::Result<()>;
}

impl Scratch for &mut std::fs::File {
    fn truncate(&mut self, len: u64) -> io::Result<()> {
        self.set_len(len)
    }
}

impl Scratch for io::Cursor<Vec<u8>> {
    fn truncate(&mut self, len: u64) -> io::Result<()> {
        self.get_mut()
            .truncate(usize::try_from(len).unwrap_or(usize::MAX));
        Ok(())
    }
}

/// Bytes gathered before they are written: a step's text is about 750
/// bytes, and a write each would be a system call each.
const FLUSH_AT: usize = 64 * 1024;

/// The fingerprint the head is first written with: the length of every
/// fingerprint.
fn placeholder() -> String {
    format!("{}{}", ir::fingerprint::PREFIX, "0".repeat(64))
}

/// A [`StepSink`] writing the IR of the one plan checked into `out`, the
/// steps' canonical texts into `canon`.
pub struct IrStream<O: Scratch, C: Scratch> {
    out: O,
    canon: C,
    /// The IR's text up to its steps' `[`, as written (with the
    /// placeholder fingerprint); `None` before a plan begins.
    head: Option<String>,
    plans: usize,
    /// How many steps the plan has, and how many were written.
    expected: usize,
    written: usize,
    /// Where the last step's line was counted to.
    lines: LineCursor,
    /// Once the plan is checked: what [`IrStream::finish`] writes.
    ended: Option<Ended>,
    /// Bytes not yet written to `out` and `canon`.
    text: Vec<u8>,
    canonical: String,
    /// One step's canonical text (its room reused).
    step_text: String,
    /// The first failure: nothing is to be kept.
    failed: Option<String>,
    /// The digests of every byte written to `out` and to `canon`, which
    /// each must be when read back.
    out_digest: RunningDigest,
    canon_digest: RunningDigest,
}

/// A plan checked and its IR written but for the head's fingerprint.
struct Ended {
    name: String,
    /// The head as first written (with the placeholder) and as it is to
    /// be written again (with the fingerprint).
    first: String,
    head: String,
}

/// A reader that digests every byte it reads.
struct Digesting<'d, R> {
    inner: R,
    digest: &'d mut RunningDigest,
}

impl<R: Read> Read for Digesting<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.digest.update(buf.get(..n).unwrap_or_default());
        Ok(n)
    }
}

impl<O: Scratch, C: Scratch> IrStream<O, C> {
    /// A stream into `out` and `canon`, both empty.
    pub fn new(out: O, canon: C) -> Self {
        IrStream {
            out,
            canon,
            head: None,
            plans: 0,
            expected: 0,
            written: 0,
            lines: LineCursor::default(),
            ended: None,
            text: Vec::with_capacity(FLUSH_AT + 4096),
            canonical: String::with_capacity(FLUSH_AT + 4096),
            step_text: String::new(),
            failed: None,
            out_digest: RunningDigest::default(),
            canon_digest: RunningDigest::default(),
        }
    }

    fn fail(&mut self, why: String) {
        self.failed.get_or_insert(why);
    }

    /// Writes what is gathered when there is enough of it (`all`: all).
    fn flush(&mut self, all: bool) -> io::Result<()> {
        if all || self.text.len() >= FLUSH_AT {
            self.out.write_all(&self.text)?;
            self.out_digest.update(&self.text);
            self.text.clear();
        }
        if all || self.canonical.len() >= FLUSH_AT {
            self.canon.write_all(self.canonical.as_bytes())?;
            self.canon_digest.update(self.canonical.as_bytes());
            self.canonical.clear();
        }
        Ok(())
    }

    /// Writes the IR's head again with its fingerprint and gives `out`
    /// back, once the check of `plan` (the checked plan whose steps were
    /// given, without errors) found nothing that stops it. Refused if
    /// `plan` is not the one plan begun and ended, a step was not lowered,
    /// or writing failed: the caller keeps nothing.
    pub fn finish(mut self, plan: &CheckedPlan) -> Result<O, String> {
        if self.plans != 1 {
            return Err(format!("{} plans were checked, not one", self.plans));
        }
        if let Some(why) = self.failed.take() {
            return Err(why);
        }
        let Some(ended) = self.ended.take() else {
            return Err("no plan was checked".to_string());
        };
        if ended.name != plan.name {
            return Err(format!(
                "the IR written is plan `{}`'s, not `{}`'s",
                ended.name, plan.name
            ));
        }
        let written = |e: io::Error| format!("cannot write the IR: {e}");
        self.out.rewind().map_err(written)?;
        self.out.write_all(ended.head.as_bytes()).map_err(written)?;
        self.out.flush().map_err(written)?;
        // Read back: the head written again, then what followed it as
        // first written.
        self.out.rewind().map_err(written)?;
        let mut head = vec![0u8; ended.head.len()];
        self.out.read_exact(&mut head).map_err(written)?;
        let mut read = RunningDigest::default();
        read.update(ended.first.as_bytes());
        io::copy(&mut self.out, &mut read).map_err(written)?;
        if head != ended.head.as_bytes() || read.finish() != self.out_digest.finish() {
            return Err(CHANGED.to_string());
        }
        Ok(self.out)
    }

    /// The rest of the IR of `plan` and its fingerprint, once the plan is
    /// checked: the members after the steps written, the steps' texts read
    /// back as they were written, and the head with the fingerprint
    /// returned.
    fn end_plan(
        &mut self,
        plan: &CheckedPlan,
        step_name: &dyn Fn(usize) -> Str,
        sources: &SourceMap,
    ) -> Result<Ended, String> {
        let Some(head) = self.head.take() else {
            return Err("no plan was checked".to_string());
        };
        let scheduled: usize = plan.schedule.iter().flatten().map(Vec::len).sum();
        if scheduled != self.expected || self.written != self.expected {
            return Err(format!(
                "plan `{}` has {} steps ({scheduled} scheduled), and {} were lowered",
                plan.name, self.expected, self.written
            ));
        }
        let mut ir = super::lower::around(plan, Vec::new(), step_name, sources)?;
        let written = |e: io::Error| format!("cannot write the IR: {e}");
        self.flush(true).map_err(written)?;
        let canon_len = self.canon.stream_position().map_err(written)?;
        self.canon.rewind().map_err(written)?;
        let mut read = RunningDigest::default();
        ir.fingerprint = ir::fingerprint::fingerprint_of_parts(
            &ir,
            &mut Digesting {
                inner: Read::by_ref(&mut self.canon).take(canon_len),
                digest: &mut read,
            },
        )?;
        if read.finish() != std::mem::take(&mut self.canon_digest).finish() {
            return Err(CHANGED.to_string());
        }
        let (new_head, tail) = split(&ir)?;
        if new_head != head.replacen(&placeholder(), &ir.fingerprint, 1) {
            return Err("the IR's head changed while its steps were written".to_string());
        }
        self.out.write_all(tail.as_bytes()).map_err(written)?;
        self.out_digest.update(tail.as_bytes());
        Ok(Ended {
            name: plan.name.clone(),
            first: head,
            head: new_head,
        })
    }
}

/// Why an IR is refused when a file read back is not what was written.
const CHANGED: &str =
    "the IR's file or the scratch file beside it changed while the IR was written";

/// `ir`'s text (one line, as [`ir::write_json`] writes it) cut after
/// its steps' `[`: the head, and the rest from the `]` on. `ir` has no
/// steps. A `"` inside a string is escaped, so `,"steps":[]` is found
/// only as the member.
fn split(ir: &ir::PlanIr) -> Result<(String, String), String> {
    let mut text = Vec::new();
    ir::write_json(ir, false, &mut text).map_err(|e| format!("cannot serialise the IR: {e}"))?;
    let text = String::from_utf8(text).map_err(|e| format!("cannot serialise the IR: {e}"))?;
    const STEPS: &str = ",\"steps\":[]";
    let at = match text
        .match_indices(STEPS)
        .map(|(i, _)| i)
        .collect::<Vec<_>>()[..]
    {
        [at] => at + STEPS.len() - 1,
        _ => return Err("the IR's text has no single `steps` member".to_string()),
    };
    let (head, tail) = text.split_at(at);
    Ok((head.to_string(), tail.to_string()))
}

impl<O: Scratch, C: Scratch> StepSink for IrStream<O, C> {
    fn plan(&mut self, head: &CheckedPlan, steps: usize, sources: &SourceMap) {
        self.plans += 1;
        if self.plans > 1 {
            return self.fail("the file holds more than one plan".to_string());
        }
        self.expected = steps;
        let mut plan = head.clone();
        plan.schedule = Some(Vec::new());
        let split = super::lower::around(&plan, Vec::new(), &|_| Str::default(), sources).and_then(
            |mut ir| {
                ir.fingerprint = placeholder();
                split(&ir)
            },
        );
        match split {
            Ok((text, _)) => {
                self.text.extend_from_slice(text.as_bytes());
                self.head = Some(text);
            }
            Err(why) => self.fail(why),
        }
    }

    fn step(
        &mut self,
        step: &CheckedStep,
        bindings: &[Binding],
        step_name: &dyn Fn(usize) -> Str,
        sources: &SourceMap,
    ) {
        if self.failed.is_some() {
            return;
        }
        let lines = &mut self.lines;
        let lowered = super::lower::lower_step(bindings, None, step, step_name, &mut |s| {
            super::lower::span_forward(sources, lines, s)
        });
        let step_ir = match lowered {
            Ok(step_ir) => step_ir,
            // A step with an error: the check reports it, and nothing is
            // kept.
            Err(why) => return self.fail(why),
        };
        if self.written > 0 {
            self.text.push(b',');
            self.canonical.push(',');
        }
        self.written += 1;
        let written = serde_json::to_writer(&mut self.text, &step_ir)
            .map_err(|e| format!("cannot serialise the IR: {e}"))
            .and_then(|()| ir::fingerprint::canonical_step(&step_ir, &mut self.step_text));
        if let Err(why) = written {
            return self.fail(why);
        }
        self.canonical.push_str(&self.step_text);
        if let Err(e) = self.flush(false) {
            self.fail(format!("cannot write the IR: {e}"));
        }
    }

    fn end(&mut self, plan: &CheckedPlan, step_name: &dyn Fn(usize) -> Str, sources: &SourceMap) {
        if self.failed.is_some() || self.plans != 1 {
            return;
        }
        match self.end_plan(plan, step_name, sources) {
            Ok(ended) => self.ended = Some(ended),
            Err(why) => self.fail(why),
        }
    }

    fn restart(&mut self) {
        self.head = None;
        self.plans = 0;
        self.expected = 0;
        self.written = 0;
        self.lines = LineCursor::default();
        self.ended = None;
        self.text.clear();
        self.canonical.clear();
        self.failed = None;
        self.out_digest = RunningDigest::default();
        self.canon_digest = RunningDigest::default();
        let emptied = (self.out.rewind())
            .and_then(|()| self.out.truncate(0))
            .and_then(|()| self.canon.rewind())
            .and_then(|()| self.canon.truncate(0));
        if let Err(e) = emptied {
            self.fail(format!("cannot write the IR: {e}"));
        }
    }
}
