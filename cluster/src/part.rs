//! `detect_part(name, parts)`: [`layout::partition_of`] as a DataFusion
//! scalar function (FNV-1a of the name's UTF-8 bytes, modulo `parts`); the
//! scan plan names a pair's part with it (see [`crate::plan`]).

use crate::layout;
use datafusion::arrow::array::{Array, AsArray, Int64Array};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{exec_err, Result, ScalarValue};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, Volatility,
};
use std::sync::Arc;

/// The function's name in SQL.
pub const NAME: &str = "detect_part";

/// The function, to register in a session.
pub fn udf() -> ScalarUDF {
    ScalarUDF::new_from_impl(DetectPart {
        signature: Signature::any(2, Volatility::Immutable),
    })
}

#[derive(Debug, PartialEq, Eq, Hash)]
struct DetectPart {
    signature: Signature,
}

impl ScalarUDFImpl for DetectPart {
    fn name(&self) -> &str {
        NAME
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _args: &[DataType]) -> Result<DataType> {
        Ok(DataType::Int64)
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let parts = match &args.args[1] {
            ColumnarValue::Scalar(ScalarValue::Int64(Some(p)))
                if *p > 0 && *p <= u32::MAX as i64 =>
            {
                *p as u32
            }
            other => {
                return exec_err!("{NAME}: parts must be a positive Int64 literal, got {other:?}")
            }
        };
        let names = ColumnarValue::values_to_arrays(&args.args[..1])?;
        let names = cast(&names[0], &DataType::Utf8)?;
        let names = names.as_string::<i32>();
        let parts: Int64Array = (0..names.len())
            .map(|r| {
                (!names.is_null(r)).then(|| i64::from(layout::partition_of(names.value(r), parts)))
            })
            .collect();
        Ok(ColumnarValue::Array(Arc::new(parts)))
    }
}
