//! detect-sim
