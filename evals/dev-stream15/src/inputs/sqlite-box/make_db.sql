CREATE TABLE rota (week INTEGER, day TEXT, volunteer TEXT, shift TEXT);
INSERT INTO rota VALUES (1,'Mon','Aino','08-12'),(1,'Tue','Aino','08-12'),(1,'Wed','Bram','08-12'),(1,'Thu','Bram','08-12'),(1,'Fri','Aino','08-12'),
(2,'Mon','Bram','08-12'),(2,'Tue','Bram','08-12'),(2,'Wed','Aino','08-12'),(2,'Thu','Aino','08-12'),(2,'Fri','Bram','08-12'),
(3,'Mon','Aino','08-12'),(3,'Tue','Aino','08-12'),(3,'Wed','Bram','08-12'),(3,'Thu','Bram','08-12'),(3,'Fri','Aino','08-12');
