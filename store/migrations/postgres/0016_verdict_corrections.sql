-- Verdicts stay append-only; two columns say more about each:
-- `unseen` is 1 when one of its accounts had no stored move of the site
-- when it was recorded (allowed only when the decider said so, `--unseen`),
-- and `supersedes` names the verdict it corrects (on the same accounts,
-- with a note saying why). Both rows stay; the newer one rules.
ALTER TABLE verdicts ADD COLUMN unseen BIGINT NOT NULL DEFAULT 0;
ALTER TABLE verdicts ADD COLUMN supersedes BIGINT;
