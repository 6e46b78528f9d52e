CREATE TABLE shifts(day TEXT, slot TEXT, staff TEXT, role TEXT);
INSERT INTO shifts VALUES
 ('Mon','06-14','Ana','nurse'),('Mon','14-22','Ben','nurse'),('Mon','22-06','Cai','nurse'),
 ('Tue','06-14','Ana','nurse'),('Tue','14-22','Ben','nurse'),('Tue','22-06','Cai','nurse'),
 ('Wed','06-14','Ana','nurse'),('Wed','14-22','Dev','nurse'),('Wed','22-06','Cai','nurse'),
 ('Thu','06-14','Ana','nurse'),('Thu','14-22','Ben','nurse'),('Thu','22-06','Eli','nurse'),
 ('Fri','06-14','Ana','nurse'),('Fri','14-22','Ben','nurse'),('Fri','22-06','Cai','nurse'),
 ('Sat','06-14','Fay','nurse'),('Sat','14-22','Fay','nurse'),('Sat','22-06','Cai','nurse'),
 ('Sun','06-14','Fay','nurse'),('Sun','14-22','Ben','nurse'),('Sun','22-06','Cai','nurse');
