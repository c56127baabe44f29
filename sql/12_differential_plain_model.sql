-- 12_differential_plain_model: 07_differential with compression = off
-- mode = model on every
-- index (so merges write their segments so too), 100 queries a round.
SET ldiff.nq = 100;
SET ldiff.compression = 'off';
SET ldiff.mode = 'model';
\i sql/07_differential.sql
RESET ldiff.compression;
RESET ldiff.mode;
RESET ldiff.nq;
