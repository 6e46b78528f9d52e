CREATE TABLE rota (day TEXT, shift TEXT, primary_eng TEXT, secondary_eng TEXT, escalation TEXT);
WITH RECURSIVE d(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM d WHERE n < 14)
INSERT INTO rota
SELECT date('2027-03-01', '+' || (n - 1) || ' days'), s.shift,
       CASE (n + s.k) % 3 WHEN 0 THEN 'Amara' WHEN 1 THEN 'Bogdan' ELSE 'Chen' END,
       CASE (n + s.k) % 3 WHEN 0 THEN 'Bogdan' WHEN 1 THEN 'Chen' ELSE 'Amara' END,
       'ops-lead@example.com'
FROM d, (SELECT 'day' AS shift, 0 AS k UNION ALL SELECT 'night', 1) AS s;
.mode column
.headers on
SELECT day, shift, primary_eng, secondary_eng, escalation FROM rota ORDER BY day, shift;
