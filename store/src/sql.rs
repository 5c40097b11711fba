//! SQL both back ends understand: the batched multi-row insert.

use super::{Backend, Result};
use sqlx::{Any, Transaction};

/// Rows per multi-row `INSERT`.
const BATCH_ROWS: usize = 500;

type AnyQuery<'q> = sqlx::query::Query<'q, Any, sqlx::any::AnyArguments<'q>>;

/// `INSERT INTO {target} VALUES (...), (...) {on_conflict}` in batches,
/// binding each row with `bind`, which may bind borrowed values (a name as
/// `&str`: no copy of it); returns the rows inserted.
pub(super) async fn insert_rows<T>(
    backend: Backend,
    tx: &mut Transaction<'_, Any>,
    target: &str,
    columns: usize,
    on_conflict: &str,
    rows: &[T],
    bind: impl for<'q> Fn(AnyQuery<'q>, &'q T) -> AnyQuery<'q>,
) -> Result<u64> {
    let row = format!("({})", vec!["?"; columns].join(","));
    insert_rows_as(backend, tx, target, &row, on_conflict, rows, bind).await
}

/// [`insert_rows`] with each row written as `row`: its values in SQL, a
/// `?` for each one `bind` binds, the others constants.
pub(super) async fn insert_rows_as<T>(
    backend: Backend,
    tx: &mut Transaction<'_, Any>,
    target: &str,
    row: &str,
    on_conflict: &str,
    rows: &[T],
    bind: impl for<'q> Fn(AnyQuery<'q>, &'q T) -> AnyQuery<'q>,
) -> Result<u64> {
    let mut affected = 0;
    for chunk in rows.chunks(BATCH_ROWS) {
        let sql = insert_sql(backend, target, row, chunk.len(), on_conflict);
        let mut q = sqlx::query(&sql);
        for row in chunk {
            q = bind(q, row);
        }
        affected += q.execute(&mut **tx).await?.rows_affected();
    }
    Ok(affected)
}

/// `n` numbered parameters from `$first` on, comma-separated: the list of
/// an `IN (...)` (both back ends read `$N`).
pub(super) fn numbered_marks(first: usize, n: usize) -> String {
    (first..first + n)
        .map(|i| format!("${i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A multi-row `INSERT` of `rows` rows written as `row`. SQLite gets
/// anonymous `?` parameters: looking up a named `$N` is linear in the
/// number of parameters there, which made large inserts quadratic.
fn insert_sql(backend: Backend, target: &str, row: &str, rows: usize, suffix: &str) -> String {
    let mut sql = format!("INSERT INTO {target} VALUES ");
    let mut n = 0;
    for r in 0..rows {
        if r > 0 {
            sql.push(',');
        }
        match backend {
            Backend::Sqlite => sql.push_str(row),
            Backend::Postgres => {
                for c in row.chars() {
                    if c == '?' {
                        n += 1;
                        sql.push('$');
                        sql.push_str(&n.to_string());
                    } else {
                        sql.push(c);
                    }
                }
            }
        }
    }
    sql.push_str(suffix);
    sql
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_marks_count_from_the_first() {
        assert_eq!(numbered_marks(2, 3), "$2, $3, $4");
        assert_eq!(numbered_marks(1, 0), "");
    }

    #[test]
    fn insert_sql_numbers_parameters() {
        assert_eq!(
            insert_sql(Backend::Postgres, "t (a, b)", "(?,?)", 2, ""),
            "INSERT INTO t (a, b) VALUES ($1,$2),($3,$4)"
        );
        assert_eq!(
            insert_sql(Backend::Sqlite, "t (a, b)", "(?,?)", 2, ""),
            "INSERT INTO t (a, b) VALUES (?,?),(?,?)"
        );
        // Constants stay as they are; only the marks are numbered.
        assert_eq!(
            insert_sql(Backend::Postgres, "t (a, b, c)", "(?,0,?)", 2, " X"),
            "INSERT INTO t (a, b, c) VALUES ($1,0,$2),($3,0,$4) X"
        );
    }
}
