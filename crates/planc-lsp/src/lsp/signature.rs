//! Signature help in `.plan` text: inside a step's call, the tool's
//! signature with the parameter being written highlighted. The text before
//! the cursor is lexed as completion does ([`super::completion`]), since
//! the call being typed is rarely complete.

use lsp_types as lsp;

use super::cursor::{Tok, brackets, step_call, tokens};
use super::{Failure, Server, convert};
use crate::source::SourceKind;
use crate::syntax::lexer::Token;

pub fn signature_help(
    s: &Server<'_>,
    p: lsp::SignatureHelpParams,
) -> Result<Option<lsp::SignatureHelp>, Failure> {
    let pos = &p.text_document_position_params;
    let Some(a) = s.analysis(&pos.text_document.uri) else {
        return Ok(None);
    };
    let Some(file) = a.doc_file() else {
        return Ok(None);
    };
    if file.kind != SourceKind::Text {
        return Ok(None);
    }
    let offset = convert::offset(file, pos.position);
    let Some(before) = file.text.get(..offset) else {
        return Ok(None);
    };
    let toks = tokens(before);
    let (open, _) = brackets(&toks);
    // The innermost step call the cursor is in, through any lists and
    // records in its arguments.
    let Some((k, tool)) = open
        .iter()
        .rev()
        .find_map(|&k| step_call(&toks, k).map(|(tool, _)| (k, tool)))
    else {
        return Ok(None);
    };
    let Some(t) = a.outcome.checked.catalog.get(tool) else {
        return Ok(None);
    };
    let (label, ranges) = t.signature_parts();
    let (given, current) = arguments(&toks, k);
    // The parameter being written: the one named in the current argument,
    // else the first one not given yet.
    let active = match current {
        Some(name) => t.params.iter().position(|p| p.name == name),
        None => t
            .params
            .iter()
            .position(|p| !given.contains(&p.name.as_str())),
    };
    let utf16 = |byte: usize| {
        let units = label.get(..byte).map_or(0, |s| s.encode_utf16().count());
        u32::try_from(units).unwrap_or(u32::MAX)
    };
    let parameters = t
        .params
        .iter()
        .zip(&ranges)
        .map(|(p, r)| lsp::ParameterInformation {
            label: lsp::ParameterLabel::LabelOffsets([utf16(r.start), utf16(r.end)]),
            documentation: (!p.doc.is_empty()).then(|| lsp::Documentation::String(p.doc.clone())),
        })
        .collect();
    let active = active.and_then(|i| u32::try_from(i).ok());
    Ok(Some(lsp::SignatureHelp {
        signatures: vec![lsp::SignatureInformation {
            label,
            documentation: (!t.doc.is_empty()).then(|| lsp::Documentation::String(t.doc.clone())),
            parameters: Some(parameters),
            active_parameter: active,
        }],
        active_signature: Some(0),
        active_parameter: active,
    }))
}

/// The arguments written in the call opened at `k`, up to the end of
/// `toks`: the names of those finished (before the last comma at the
/// call's level), and the name of the one being written, once its `:` is
/// typed (or it is one `name:value` token).
fn arguments<'t>(toks: &[Tok<'t>], k: usize) -> (Vec<&'t str>, Option<&'t str>) {
    let mut given = Vec::new();
    let mut current = None;
    let mut depth = 0usize;
    let mut prev: Option<Token<'t>> = None;
    for (t, _, _) in toks.iter().skip(k + 1) {
        match t {
            Token::LParen | Token::LBracket | Token::LBrace => depth += 1,
            Token::RParen | Token::RBracket | Token::RBrace => depth = depth.saturating_sub(1),
            Token::Comma if depth == 0 => given.extend(current.take()),
            Token::Colon if depth == 0 => {
                if let Some(Token::Ident(name)) = prev {
                    current = Some(name);
                }
            }
            Token::Scope(s) if depth == 0 && current.is_none() => {
                current = s.split_once(':').map(|(name, _)| name);
            }
            _ => {}
        }
        prev = Some(*t);
    }
    (given, current)
}
