//! The IPs an account moved from in one bucket, with their move counts: almost
//! always none (a stall) or one, kept inline in 16 bytes; more spill to the
//! heap. It reads as a slice of `(IpId, count)`.

use crate::IpId;
use std::ops::{Deref, DerefMut};

/// `(IP, move count)` pairs in the order of each IP's first move.
#[derive(Debug, Clone, Default)]
pub enum IpCounts {
    #[default]
    Empty,
    One([(IpId, u32); 1]),
    Many(Box<Vec<(IpId, u32)>>),
}

impl IpCounts {
    /// An empty list (allocates nothing).
    #[inline]
    pub const fn new() -> Self {
        IpCounts::Empty
    }

    /// Appends one pair.
    #[inline]
    pub fn push(&mut self, pair: (IpId, u32)) {
        match self {
            IpCounts::Empty => *self = IpCounts::One([pair]),
            IpCounts::One([first]) => {
                *self = IpCounts::Many(Box::new(vec![*first, pair]));
            }
            IpCounts::Many(v) => v.push(pair),
        }
    }

    #[inline]
    pub fn as_slice(&self) -> &[(IpId, u32)] {
        match self {
            IpCounts::Empty => &[],
            IpCounts::One(one) => one,
            IpCounts::Many(v) => v,
        }
    }

    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [(IpId, u32)] {
        match self {
            IpCounts::Empty => &mut [],
            IpCounts::One(one) => one,
            IpCounts::Many(v) => v,
        }
    }
}

impl Deref for IpCounts {
    type Target = [(IpId, u32)];
    #[inline]
    fn deref(&self) -> &Self::Target {
        self.as_slice()
    }
}

impl DerefMut for IpCounts {
    #[inline]
    fn deref_mut(&mut self) -> &mut Self::Target {
        self.as_mut_slice()
    }
}

impl PartialEq for IpCounts {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for IpCounts {}

impl From<Vec<(IpId, u32)>> for IpCounts {
    fn from(v: Vec<(IpId, u32)>) -> Self {
        match v.len() {
            0 => IpCounts::Empty,
            1 => IpCounts::One([v[0]]),
            _ => IpCounts::Many(Box::new(v)),
        }
    }
}

impl FromIterator<(IpId, u32)> for IpCounts {
    fn from_iter<I: IntoIterator<Item = (IpId, u32)>>(iter: I) -> Self {
        let mut out = IpCounts::Empty;
        for pair in iter {
            out.push(pair);
        }
        out
    }
}

impl<'a> IntoIterator for &'a IpCounts {
    type Item = &'a (IpId, u32);
    type IntoIter = std::slice::Iter<'a, (IpId, u32)>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<'a> IntoIterator for &'a mut IpCounts {
    type Item = &'a mut (IpId, u32);
    type IntoIter = std::slice::IterMut<'a, (IpId, u32)>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_mut_slice().iter_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_as_the_slice_pushed_in_order() {
        let mut c = IpCounts::new();
        assert!(c.is_empty());
        c.push((4, 1));
        assert_eq!(&c[..], &[(4, 1)]);
        c.push((2, 3));
        c.push((9, 1));
        assert_eq!(&c[..], &[(4, 1), (2, 3), (9, 1)]);
        c[1].1 += 1;
        assert_eq!(c, IpCounts::from(vec![(4, 1), (2, 4), (9, 1)]));
        let again: IpCounts = c.iter().copied().collect();
        assert_eq!(again, c);
        assert_ne!(again, IpCounts::from(vec![(4, 1)]));
    }

    #[test]
    fn fits_in_two_words() {
        assert_eq!(std::mem::size_of::<IpCounts>(), 16);
        assert_eq!(std::mem::size_of::<crate::Segment>(), 32);
    }
}
