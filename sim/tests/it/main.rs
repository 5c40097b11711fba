//! The simulator's tests, one test binary: the world, the evaluation and
//! the pipeline on simulated seasons.

mod eval_by_hand;
mod eval_props;
mod families;
mod pipeline;
mod simulate;
