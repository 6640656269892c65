//! The HTML report's marks of borderline decisions ([`crate::borderline`], R90–R92): at each
//! one's instant an amber triangle under the time axis and a thin line down the lanes, its
//! title the decision's text (shown on hover).

use core::fmt;

use probesim_core::SimTime;

use super::{Esc, Scale, N};

/// The marks' colour, and the style of a marked step in the story and the Events table.
pub(super) const COLOUR: &str = "#e67e00";

/// Draws a mark at each `(instant, text)` of `flags`, down to `bottom`; an instant inside a
/// fold is marked on the fold.
pub(super) fn draw(
    w: &mut impl fmt::Write,
    scale: &Scale,
    bottom: f64,
    flags: &[(SimTime, String)],
) -> fmt::Result {
    for (k, (t, text)) in flags.iter().enumerate() {
        let x = scale.x(*t);
        writeln!(
            w,
            "<g class=\"borderline\" id=\"borderline-{}\"><title>{}</title><line x1=\"{x}\" y1=\"42\" x2=\"{x}\" y2=\"{}\" stroke=\"{COLOUR}\" stroke-width=\"1.5\" stroke-dasharray=\"2 2\"/><path d=\"M{} 43L{} 57L{} 57Z\" fill=\"{COLOUR}\"/><text x=\"{x}\" y=\"55\" text-anchor=\"middle\" font-family=\"sans-serif\" font-size=\"10\" font-weight=\"bold\" fill=\"#fff\">!</text></g>",
            k + 1,
            Esc(text),
            N(bottom),
            N(x),
            N(x + 7.5),
            N(x - 7.5),
            x = N(x),
        )?;
    }
    Ok(())
}

/// How a borderline mark's line in the story begins ([`crate::borderline::Borderline::line`]).
pub(super) const PREFIX: &str = "⚠ borderline at t=";

/// The page's style for marked steps and rows, written only on a page that has marks.
pub(super) fn page_style() -> String {
    format!(
        "#story li.borderline{{background:#fff3e0;border-left:3px solid {COLOUR}}}#story li.borderline a.t{{color:#a04f00}}tr.borderline td{{background:#fff3e0}}"
    )
}

/// The legend's entry for the marks.
pub(super) fn legend(w: &mut impl fmt::Write) -> fmt::Result {
    writeln!(
        w,
        "<dt><svg width=\"14\" height=\"14\" aria-hidden=\"true\"><path d=\"M7 0L14 14L0 14Z\" fill=\"{COLOUR}\"/></svg> borderline</dt><dd>a decision of this run that less than the realistic variation decided (a back-off check near the expiry, R90; a threshold crossing one failure away or near the end, R91; a startup race, R92): a real cluster may go the other way; hover for which way, why, the share of simulated timings and the options that replay each</dd>"
    )
}

/// The Events table's rows for the marks of items before `upto` not yet written (`written`
/// counts them; `flags` are in trace order).
pub(super) fn rows(
    w: &mut impl fmt::Write,
    flags: &[crate::borderline::Borderline],
    written: &mut usize,
    upto: usize,
) -> fmt::Result {
    while let Some(f) = flags.get(*written).filter(|f| f.item < upto) {
        *written += 1;
        writeln!(
            w,
            "<tr class=\"borderline\"><td class=\"num\">{}</td><td colspan=\"5\">⚠ borderline ({}): {}</td></tr>",
            crate::explain::At(f.at),
            f.rule,
            Esc(&f.text)
        )?;
    }
    Ok(())
}
