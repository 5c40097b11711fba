//! Seasons: a tournament period with a number, a time range and a pattern for
//! its games' names.

use crate::Epoch;
use regex::Regex;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The pattern that names the games of an inferred season: `^4pLeague_S7_`
/// for season 7.
pub const INFERRED_SEASON_GAMES: &str = r"^4pLeague_S(\d+)_";

#[derive(Debug, thiserror::Error)]
pub enum SeasonError {
    #[error("the games pattern {pattern:?} is not a valid regular expression: {source}")]
    BadPattern {
        pattern: String,
        #[source]
        source: regex::Error,
    },
    #[error("the season's range is empty: it ends ({to}) before it starts ({from})")]
    EmptyRange { from: String, to: String },
}

/// A tournament period.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Season {
    pub number: u32,
    /// First second of the season (inclusive), UTC; `None` for open.
    pub from: Option<Epoch>,
    /// End of the season (exclusive), UTC; `None` for open.
    pub to: Option<Epoch>,
    /// Regular expression matched against game names.
    pub games: String,
    /// Not defined by an account but read off game names.
    pub inferred: bool,
}

impl Season {
    /// A season defined by hand. Fails on a bad pattern or an empty range.
    pub fn new(
        number: u32,
        from: Option<Epoch>,
        to: Option<Epoch>,
        games: Option<String>,
    ) -> Result<Season, SeasonError> {
        let season = Season {
            number,
            from,
            to,
            games: games.unwrap_or_else(|| default_games(number)),
            inferred: false,
        };
        season.games_regex()?;
        if let (Some(f), Some(t)) = (from, to) {
            if t <= f {
                return Err(SeasonError::EmptyRange {
                    from: f.to_string(),
                    to: t.to_string(),
                });
            }
        }
        Ok(season)
    }

    /// The season `number` as read off game names: open range, games
    /// `^4pLeague_S{number}_`.
    pub fn inferred(number: u32) -> Season {
        Season {
            number,
            from: None,
            to: None,
            games: default_games(number),
            inferred: true,
        }
    }

    pub fn games_regex(&self) -> Result<Regex, SeasonError> {
        Regex::new(&self.games).map_err(|source| SeasonError::BadPattern {
            pattern: self.games.clone(),
            source,
        })
    }

    /// Whether the time `t` lies in the season's range.
    pub fn contains(&self, t: Epoch) -> bool {
        self.from.is_none_or(|f| t >= f) && self.to.is_none_or(|e| t < e)
    }
}

/// `^4pLeague_S{n}_`: the games of season `n` on the reference's site.
pub fn default_games(number: u32) -> String {
    format!("^4pLeague_S{number}_")
}

/// The season numbers named in game names (`4pLeague_S7_...` names season 7).
pub fn seasons_in_game_names<'a>(games: impl IntoIterator<Item = &'a str>) -> BTreeSet<u32> {
    let re = Regex::new(INFERRED_SEASON_GAMES).expect("valid pattern");
    games
        .into_iter()
        .filter_map(|g| re.captures(g)?.get(1)?.as_str().parse().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn infers_seasons_from_game_names() {
        let names = [
            "4pLeague_S7_D1L1_G3",
            "4pLeague_S12_x",
            "casual",
            "4pLeague_X",
        ];
        assert_eq!(
            seasons_in_game_names(names),
            [7, 12].into_iter().collect::<BTreeSet<_>>()
        );
    }

    #[test]
    fn ranges_are_half_open_and_may_be_open() {
        let s = Season::new(1, Some(10), Some(20), None).unwrap();
        assert!(!s.contains(9) && s.contains(10) && s.contains(19) && !s.contains(20));
        let open = Season::new(1, None, Some(20), None).unwrap();
        assert!(open.contains(i64::MIN) && !open.contains(20));
        assert!(Season::new(1, Some(20), Some(10), None).is_err());
        assert!(Season::new(1, None, None, Some("(".into())).is_err());
    }
}
