//! A server's badge: its spec score as an SVG image to put in a README, and the
//! same as a shields.io endpoint JSON (`https://img.shields.io/endpoint?url=...`)
//! for those who let shields.io draw it.
//!
//! The score counts UNSUPPORTED scenarios in the denominator (as [`Score`] does):
//! a server that lists one tool of ten does not get a full badge.

use serde_json::json;

use crate::execute::standing::Score;

/// The badge's left part.
const LABEL: &str = "spec conformance";

/// The message and colour (a shields.io colour name and its hex) of a score.
fn message_and_colour(score: &Score) -> (String, &'static str, &'static str) {
    if score.total == 0 {
        return ("nothing judged".to_string(), "lightgrey", "#9f9f9f");
    }
    let per_mille = score.passed * 1000 / score.total;
    let (name, hex) = match per_mille {
        1000 => ("brightgreen", "#44cc11"),
        900.. => ("green", "#97ca00"),
        750.. => ("yellow", "#dfb317"),
        500.. => ("orange", "#fe7d37"),
        _ => ("red", "#e05d44"),
    };
    (
        format!(
            "{}/{} ({})",
            score.passed,
            score.total,
            super::percent(score)
        ),
        name,
        hex,
    )
}

/// The shields.io endpoint JSON for a spec score.
pub(crate) fn shields_endpoint(score: &Score) -> String {
    let (message, colour, _) = message_and_colour(score);
    let doc = json!({
        "schemaVersion": 1,
        "label": LABEL,
        "message": message,
        "color": colour,
    });
    format!("{doc:#}\n")
}

/// A flat SVG badge for a spec score. Its text is only the label and the score's
/// digits, never a server's words, so nothing in it needs escaping.
pub(crate) fn badge_svg(score: &Score) -> String {
    let (message, _, colour) = message_and_colour(score);
    // Verdana 11px averages about 7px a character: wide enough for any digit.
    let width_of = |text: &str| text.chars().count() * 7 + 12;
    let left = width_of(LABEL);
    let right = width_of(&message);
    let total = left + right;
    let left_mid = left / 2;
    let right_mid = left + right / 2;
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="20" role="img" aria-label="{LABEL}: {message}">
<title>{LABEL}: {message}</title>
<rect width="{left}" height="20" fill="#555"/>
<rect x="{left}" width="{right}" height="20" fill="{colour}"/>
<g fill="#fff" text-anchor="middle" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">
<text x="{left_mid}" y="14">{LABEL}</text>
<text x="{right_mid}" y="14">{message}</text>
</g>
</svg>
"##
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_badge_gives_the_score_and_its_colour() {
        let score = Score {
            passed: 60,
            total: 68,
        };
        let svg = badge_svg(&score);
        assert!(svg.contains(">60/68 (88%)</text>"), "{svg}");
        assert!(svg.contains("#dfb317"), "88% is yellow: {svg}");
        let endpoint: serde_json::Value =
            serde_json::from_str(&shields_endpoint(&score)).expect("JSON");
        assert_eq!(endpoint["message"], "60/68 (88%)");
        assert_eq!(endpoint["color"], "yellow");
        let full = Score {
            passed: 3,
            total: 3,
        };
        assert!(badge_svg(&full).contains("#44cc11"));
        assert!(shields_endpoint(&Score::default()).contains("nothing judged"));
    }
}
