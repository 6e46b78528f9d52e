CREATE TABLE loans (id INTEGER PRIMARY KEY, title TEXT, borrower TEXT, branch TEXT, due TEXT, renewals INTEGER);
INSERT INTO loans (title, borrower, branch, due, renewals) VALUES
 ('The Hobbit', 'A. Lindqvist', 'Harbour', '2026-12-04', 0),
 ('Dune', 'M. Osei', 'Harbour', '2026-12-04', 1),
 ('Middlemarch', 'P. Kowalski', 'Old Town', '2026-12-05', 0),
 ('Beloved', 'R. Tanaka', 'Harbour', '2026-12-05', 2),
 ('Emma', 'A. Lindqvist', 'Old Town', '2026-12-06', 0),
 ('Dracula', 'S. Haddad', 'Riverside', '2026-12-06', 0),
 ('Ulysses', 'M. Osei', 'Riverside', '2026-12-07', 1),
 ('Persuasion', 'J. Moreau', 'Harbour', '2026-12-07', 0),
 ('Kindred', 'R. Tanaka', 'Old Town', '2026-12-08', 0),
 ('Frankenstein', 'S. Haddad', 'Harbour', '2026-12-08', 3),
 ('Rebecca', 'J. Moreau', 'Riverside', '2026-12-09', 0),
 ('Solaris', 'P. Kowalski', 'Riverside', '2026-12-09', 1),
 ('Walden', 'A. Lindqvist', 'Harbour', '2026-12-10', 0),
 ('Ivanhoe', 'M. Osei', 'Old Town', '2026-12-10', 0);
.headers on
.mode column
SELECT id, title, borrower, branch, due, renewals FROM loans ORDER BY due, branch, title;
SELECT branch, COUNT(*) AS loans, SUM(renewals) AS renewals FROM loans GROUP BY branch ORDER BY branch;
