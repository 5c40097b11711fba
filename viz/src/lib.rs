//! viz
