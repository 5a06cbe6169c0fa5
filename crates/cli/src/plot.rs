//! Line charts written as both SVG and PNG, for `freshet simulate` and the demo.
//!
//! Plotting is plumbing, so it is `plotters`. Text is rendered with its pure-Rust `ab_glyph`
//! backend and a bundled font (`assets/DejaVuSans.ttf`, Bitstream Vera licence in
//! `assets/DejaVuSans-LICENSE.txt`), not the system's fontconfig, so a machine with only the
//! Rust toolchain draws the same PNG as any other.

use std::path::Path;
use std::sync::OnceLock;

use anyhow::{Context as _, anyhow};
use plotters::coord::Shift;
use plotters::prelude::*;

/// One named line: `(x, y)` points in increasing `x`.
#[derive(Clone, Debug)]
pub(crate) struct Series {
    /// The legend entry.
    pub(crate) name: String,
    /// The points.
    pub(crate) points: Vec<(f64, f64)>,
}

/// A chart: title, axis labels, lines, and optionally horizontal reference lines (e.g. the fluid
/// optimum that no policy can beat).
#[derive(Clone, Debug, Default)]
pub(crate) struct Chart {
    /// The title above the plot.
    pub(crate) title: String,
    /// The x axis label.
    pub(crate) x_label: String,
    /// The y axis label.
    pub(crate) y_label: String,
    /// The lines.
    pub(crate) series: Vec<Series>,
    /// Dashed horizontal lines: `(label, y)`.
    pub(crate) references: Vec<(String, f64)>,
}

const FONT_NAME: &str = "sans-serif";
const WIDTH: u32 = 960;
const HEIGHT: u32 = 600;

/// Registers the bundled font once; plotters keeps a process-wide table of fonts.
fn register_font() -> anyhow::Result<()> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let registered = REGISTERED.get_or_init(|| {
        plotters::style::register_font(
            FONT_NAME,
            FontStyle::Normal,
            include_bytes!("../assets/DejaVuSans.ttf"),
        )
        .is_ok()
    });
    if *registered {
        Ok(())
    } else {
        Err(anyhow!("the bundled font assets/DejaVuSans.ttf could not be loaded"))
    }
}

/// Writes `chart` to `svg` and `png` (each path written in full or not at all is the caller's
/// concern: these are fresh files in an output directory).
pub(crate) fn write_chart(chart: &Chart, svg: &Path, png: &Path) -> anyhow::Result<()> {
    register_font()?;
    {
        let root = SVGBackend::new(svg, (WIDTH, HEIGHT)).into_drawing_area();
        draw(chart, &root).with_context(|| format!("drawing {}", svg.display()))?;
        root.present().map_err(|error| anyhow!("writing {}: {error}", svg.display()))?;
    }
    let root = BitMapBackend::new(png, (WIDTH, HEIGHT)).into_drawing_area();
    draw(chart, &root).with_context(|| format!("drawing {}", png.display()))?;
    root.present().map_err(|error| anyhow!("writing {}: {error}", png.display()))?;
    Ok(())
}

/// The bounds of every point and reference line, padded by 5% of the y span.
fn bounds(chart: &Chart) -> ((f64, f64), (f64, f64)) {
    let points = chart.series.iter().flat_map(|series| series.points.iter().copied());
    let (mut x_min, mut x_max, mut y_min, mut y_max) =
        (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    for (x, y) in points.filter(|(x, y)| x.is_finite() && y.is_finite()) {
        x_min = x_min.min(x);
        x_max = x_max.max(x);
        y_min = y_min.min(y);
        y_max = y_max.max(y);
    }
    for &(_, y) in chart.references.iter().filter(|(_, y)| y.is_finite()) {
        y_min = y_min.min(y);
        y_max = y_max.max(y);
    }
    if !x_min.is_finite() {
        return ((0.0, 1.0), (0.0, 1.0));
    }
    if x_max <= x_min {
        x_max = x_min + 1.0;
    }
    let pad = ((y_max - y_min) * 0.05).max(1e-9);
    ((x_min, x_max), (y_min - pad, y_max + pad))
}

fn draw<B: DrawingBackend>(chart: &Chart, root: &DrawingArea<B, Shift>) -> anyhow::Result<()>
where
    B::ErrorType: 'static,
{
    let failed = |error: DrawingAreaErrorKind<B::ErrorType>| anyhow!("{error}");
    root.fill(&WHITE).map_err(failed)?;
    let ((x_min, x_max), (y_min, y_max)) = bounds(chart);
    let mut context = ChartBuilder::on(root)
        .caption(&chart.title, (FONT_NAME, 24))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(x_min..x_max, y_min..y_max)
        .map_err(failed)?;
    context
        .configure_mesh()
        .x_desc(chart.x_label.as_str())
        .y_desc(chart.y_label.as_str())
        .label_style((FONT_NAME, 14))
        .draw()
        .map_err(failed)?;
    for (index, series) in chart.series.iter().enumerate() {
        let color = Palette99::pick(index).to_rgba();
        context
            .draw_series(LineSeries::new(series.points.iter().copied(), color.stroke_width(2)))
            .map_err(failed)?
            .label(series.name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2)));
    }
    for (label, y) in &chart.references {
        let style = BLACK.mix(0.6).stroke_width(1);
        let dashes = DashedLineSeries::new(vec![(x_min, *y), (x_max, *y)], 8, 6, style);
        context
            .draw_series(dashes)
            .map_err(failed)?
            .label(label.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], style));
    }
    context
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .label_font((FONT_NAME, 14))
        .position(SeriesLabelPosition::LowerRight)
        .draw()
        .map_err(failed)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn writes_an_svg_and_a_png_with_the_title() {
        let directory = tempfile::tempdir().unwrap();
        let svg = directory.path().join("chart.svg");
        let png = directory.path().join("chart.png");
        let chart = Chart {
            title: "Weighted freshness over time".to_owned(),
            x_label: "time".to_owned(),
            y_label: "freshness".to_owned(),
            series: vec![
                Series { name: "threshold".to_owned(), points: vec![(0.0, 0.2), (1.0, 0.6), (2.0, 0.7)] },
                Series { name: "uniform".to_owned(), points: vec![(0.0, 0.2), (1.0, 0.4), (2.0, 0.5)] },
            ],
            references: vec![("optimum".to_owned(), 0.72)],
        };
        write_chart(&chart, &svg, &png).unwrap();
        let svg_text = std::fs::read_to_string(&svg).unwrap();
        assert!(svg_text.contains("Weighted freshness over time"));
        assert!(svg_text.contains("threshold") && svg_text.contains("optimum"));
        let png_bytes = std::fs::read(&png).unwrap();
        assert_eq!(&png_bytes[..8], b"\x89PNG\r\n\x1a\n");
        assert!(png_bytes.len() > 5_000, "a PNG with text and lines, not a blank image");
    }
}
