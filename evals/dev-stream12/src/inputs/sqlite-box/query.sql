CREATE TABLE shifts(day TEXT, slot TEXT, desk TEXT, staff TEXT);
INSERT INTO shifts VALUES
 ('Mon','morning','front','Ana'),('Mon','afternoon','front','Ana'),('Mon','morning','phones','Ben'),('Mon','afternoon','phones','Ben'),
 ('Tue','morning','front','Ana'),('Tue','afternoon','front','Chloe'),('Tue','morning','phones','Ben'),('Tue','afternoon','phones','Ben'),
 ('Wed','morning','front','Chloe'),('Wed','afternoon','front','Chloe'),('Wed','morning','phones','Ben'),('Wed','afternoon','phones','Dev'),
 ('Thu','morning','front','Ana'),('Thu','afternoon','front','Ana'),('Thu','morning','phones','Dev'),('Thu','afternoon','phones','Dev'),
 ('Fri','morning','front','Ana'),('Fri','afternoon','front','Ana'),('Fri','morning','phones','Ben'),('Fri','afternoon','phones','Ben');
SELECT day, slot, desk, staff FROM shifts ORDER BY rowid;
SELECT staff, count(*) AS shifts FROM shifts GROUP BY staff ORDER BY staff;
