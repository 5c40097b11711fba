//! `detect_pack(segments)`: an account's segments (the layout's Arrow list)
//! as one compact binary value, the form in which they cross the shuffle to
//! the parts that score them (see [`crate::plan`]).
//!
//! As Arrow, a segment took about 18 bytes of shuffle (zstd-compressed),
//! twice its Parquet: each address spelled out again in every segment, and
//! every bucket in full. Packed, the account's addresses are written once
//! (its own dictionary, in order of first use) and each segment is varints:
//! the bucket as the step from the previous one, the stall count, the stall
//! address (0: none, else its index + 1), the number of move addresses and
//! each one's index and move count. The varints are protobuf's (`prost`,
//! already in the engine's build).

use crate::segments::{segments_at, IpIds};
use datafusion::arrow::array::{Array, AsArray, BinaryBuilder};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{exec_err, DataFusionError, Result};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use prost::encoding::{decode_varint, encode_varint};
use schema::Segment;
use std::sync::Arc;

/// The function's name in SQL.
pub const NAME: &str = "detect_pack";

/// The function, to register in a session.
pub fn udf() -> ScalarUDF {
    ScalarUDF::new_from_impl(DetectPack {
        signature: Signature::any(1, Volatility::Immutable),
    })
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct DetectPack {
    signature: Signature,
}

impl ScalarUDFImpl for DetectPack {
    fn name(&self) -> &str {
        NAME
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _args: &[DataType]) -> Result<DataType> {
        Ok(DataType::Binary)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let lists = ColumnarValue::values_to_arrays(&args.args)?;
        let Some(lists) = lists[0].as_list_opt::<i32>() else {
            return exec_err!(
                "{NAME}: the segments must be a list, got {}",
                lists[0].data_type()
            );
        };
        let mut out = BinaryBuilder::new();
        let mut buf = Vec::new();
        for r in 0..lists.len() {
            if lists.is_null(r) {
                out.append_null();
                continue;
            }
            let mut ips = IpIds::default();
            let segs = segments_at(lists, r, &mut ips, NAME)?;
            buf.clear();
            pack(&segs, &ips.names(), &mut buf);
            out.append_value(&buf);
        }
        Ok(ColumnarValue::Array(Arc::new(out.finish())))
    }
}

/// Writes `segs` (sorted by bucket, addresses as indices into `names`).
fn pack(segs: &[Segment], names: &[&str], out: &mut Vec<u8>) {
    encode_varint(names.len() as u64, out);
    for name in names {
        encode_varint(name.len() as u64, out);
        out.extend_from_slice(name.as_bytes());
    }
    encode_varint(segs.len() as u64, out);
    let mut last = 0i64;
    for s in segs {
        // The first bucket whole (zigzag: any i64), then steps.
        let step = s.bucket.wrapping_sub(last);
        encode_varint(((step << 1) ^ (step >> 63)) as u64, out);
        last = s.bucket;
        encode_varint(u64::from(s.stalls), out);
        encode_varint(s.stall_ip.map_or(0, |ip| u64::from(ip.get()) + 1), out);
        let moves = s.moves.as_slice();
        encode_varint(moves.len() as u64, out);
        for &(ip, count) in moves {
            encode_varint(u64::from(ip), out);
            encode_varint(u64::from(count), out);
        }
    }
}

/// Reads a packed value back, the addresses as ids of `ips` (shared by the
/// accounts of a part).
pub fn unpack(mut bytes: &[u8], ips: &mut IpIds) -> Result<Vec<Segment>> {
    let bad = |e: prost::DecodeError| DataFusionError::Execution(format!("{NAME}: {e}"));
    let buf = &mut bytes;
    let varint = |buf: &mut &[u8]| decode_varint(buf).map_err(bad);
    let n = varint(buf)? as usize;
    let mut ids = Vec::with_capacity(n);
    for _ in 0..n {
        let len = varint(buf)? as usize;
        if len > buf.len() {
            return exec_err!("{NAME}: an address runs past the value");
        }
        let whole: &[u8] = buf;
        let (name, rest) = whole.split_at(len);
        let name = std::str::from_utf8(name)
            .map_err(|e| DataFusionError::Execution(format!("{NAME}: {e}")))?;
        ids.push(ips.id(name));
        *buf = rest;
    }
    let id = |i: u64| {
        ids.get(i as usize).copied().ok_or_else(|| {
            DataFusionError::Execution(format!("{NAME}: address {i} of {}", ids.len()))
        })
    };
    let n = varint(buf)? as usize;
    let mut segs = Vec::with_capacity(n);
    let mut last = 0i64;
    for _ in 0..n {
        let z = varint(buf)?;
        let step = ((z >> 1) as i64) ^ -((z & 1) as i64);
        last = last.wrapping_add(step);
        let stalls = varint(buf)? as u32;
        let stall_ip = match varint(buf)? {
            0 => None,
            i => Some(schema::StallIp::new(id(i - 1)?)),
        };
        let mut seg = Segment::stall_run(last, stalls, stall_ip);
        for _ in 0..varint(buf)? {
            let ip = id(varint(buf)?)?;
            seg.moves.push((ip, varint(buf)? as u32));
        }
        segs.push(seg);
    }
    Ok(segs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Moved buckets, stall runs with and without their address, several
    /// addresses in a bucket, a bucket before 1970: read back as written,
    /// the addresses as the reader's own ids.
    #[test]
    fn segments_read_back_as_written() {
        let names = ["198.51.100.7", "2001:db8::1", "203.0.113.9"];
        let mut moved = Segment::moved(1_700_000_000);
        moved.moves.push((2, 3));
        moved.moves.push((0, 1));
        let mut both = Segment::stall_run(1_700_001_800, 1, Some(schema::StallIp::new(1)));
        both.moves.push((1, 7));
        let segs = vec![
            Segment::stall_run(-3_600, 4, None),
            moved,
            both,
            Segment::stall_run(1_700_090_000, 40, Some(schema::StallIp::new(2))),
        ];
        let mut bytes = Vec::new();
        pack(&segs, &names, &mut bytes);
        assert!(bytes.len() < 70, "{} bytes", bytes.len());
        // The reader's ids differ from the writer's: one address known already.
        let mut ips = IpIds::default();
        ips.id("203.0.113.9");
        let got = unpack(&bytes, &mut ips).unwrap();
        let rename = |id: u32| ips.names()[id as usize].to_owned();
        assert_eq!(got.len(), segs.len());
        for (g, w) in got.iter().zip(&segs) {
            assert_eq!((g.bucket, g.stalls), (w.bucket, w.stalls));
            assert_eq!(
                g.stall_ip.map(|ip| rename(ip.get())),
                w.stall_ip.map(|ip| names[ip.get() as usize].to_owned())
            );
            let moves = |s: &Segment, name: &dyn Fn(u32) -> String| {
                s.moves
                    .as_slice()
                    .iter()
                    .map(|&(ip, n)| (name(ip), n))
                    .collect::<Vec<_>>()
            };
            assert_eq!(
                moves(g, &rename),
                moves(w, &|ip| names[ip as usize].to_owned())
            );
        }
        assert!(
            unpack(&bytes[..bytes.len() - 1], &mut ips).is_err(),
            "a cut value"
        );
    }
}
