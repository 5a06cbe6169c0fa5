//! Tests of the online threshold scheduler (`freshet_schedule::online`): against the batch solver,
//! politeness, budget, bunching, explain, bad input.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod behaviour;
mod budget;
mod politeness;
mod sim;
mod solver;
mod transient;
