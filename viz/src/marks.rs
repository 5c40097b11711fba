//! Mark shapes: each account's moves get a shape as well as a colour
//! ([`crate::shape`]), so two accounts never differ by colour alone.
//!
//! A mark is a nested `<svg>` with `x`, `y`, `width`, `height` and a
//! 10 x 10 view box holding one path: positioned like a rectangle, shaped
//! like anything, and carrying its own `<title>` tooltip.

use crate::fmt::px;
use crate::Shape;
use svg::node::element::{Path, Title, SVG};

/// The outline of a shape in a 10 x 10 box.
pub fn path_data(shape: Shape) -> &'static str {
    match shape {
        Shape::Square => "M1 1H9V9H1Z",
        Shape::Circle => "M5 0.5A4.5 4.5 0 1 1 4.99 0.5Z",
        Shape::Triangle => "M5 0.3L9.7 9.5H0.3Z",
        Shape::Diamond => "M5 0L10 5L5 10L0 5Z",
        Shape::Cross => "M3.5 0H6.5V3.5H10V6.5H6.5V10H3.5V6.5H0V3.5H3.5Z",
        Shape::Bar => "M0 3H10V7H0Z",
    }
}

/// A mark of `shape` at `(x, y)`, `side` px square, filled with `fill`,
/// with a tooltip when `title` is not empty.
pub fn mark(shape: Shape, x: f64, y: f64, side: f64, fill: &str, title: Option<String>) -> SVG {
    let mut m = SVG::new()
        .set("x", px(x))
        .set("y", px(y))
        .set("width", px(side))
        .set("height", px(side))
        .set("viewBox", "0 0 10 10")
        .set("overflow", "visible")
        .set("fill", fill)
        .set("data-shape", shape.name());
    if let Some(t) = title {
        m = m.add(Title::new(t));
    }
    m.add(Path::new().set("d", path_data(shape)))
}
