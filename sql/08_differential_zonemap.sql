-- 08_differential_zonemap: 07_differential with every segment a zone map
-- (reloption mode = zonemap on every index, so merges build zone maps too).
SET ldiff.mode = 'zonemap';
\i sql/07_differential.sql
RESET ldiff.mode;
