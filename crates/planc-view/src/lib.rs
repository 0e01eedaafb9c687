//! planc's views of a plan for people (`ARCHITECTURE.md`): the formatter
//! and the conversion between the text and JSON forms (`fmt`), the plan
//! graph and the review page built from the IR (`view`). No IO.

pub mod fmt;
pub mod view;

use planc_check::driver;
use planc_exec::{ir, progress};
use planc_lang::{catalog, diagnostics, source, syntax};
