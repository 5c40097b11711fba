-- The model an improved-mode scan scored with, as its model file (JSON):
-- the shipped one or a site's own (`detect model fit`, `--model FILE`).
-- NULL for reference mode, and for improved scans stored before it was
-- recorded (they scored with the model shipped at the time).
ALTER TABLE scans ADD COLUMN model TEXT;
