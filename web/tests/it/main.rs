//! `detect serve`'s application attacked on loopback, in process: a
//! SQLite store in a temporary folder, the server on a free port, requests
//! from reqwest and raw TCP. Every test is bounded in time and connections.
//! `season_model` reads a season page's words about the model that scored it.

extern crate detect_web as web;

mod flood;
mod headers;
mod redirect;
mod season_model;
mod slow;
mod support;
