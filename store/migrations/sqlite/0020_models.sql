-- Improved mode's models, versioned: each model file a site scored with,
-- imported (`detect model import`), fitted (`detect model fit --save`) or
-- shipped, numbered by the store. `file` is the file as it came (an export
-- writes these bytes back); `digest` is the SHA-256 of the model as this
-- build writes it, so one model is stored once per site.
CREATE TABLE models (
    version   INTEGER PRIMARY KEY AUTOINCREMENT,
    site      TEXT NOT NULL,
    name      TEXT NOT NULL,
    file      TEXT NOT NULL,
    digest    TEXT NOT NULL,
    fitted_on TEXT NOT NULL,
    measured  TEXT NOT NULL,
    source    TEXT NOT NULL,
    added_by  TEXT NOT NULL,
    added_at  BIGINT NOT NULL,
    UNIQUE (site, digest)
);

-- The stored model version an improved scan scored with; NULL in
-- reference mode and for scans stored before models were versioned.
ALTER TABLE scans ADD COLUMN model_version BIGINT;
