CREATE TABLE rota (day TEXT, shift TEXT, nurse TEXT, ward TEXT);
INSERT INTO rota VALUES
 ('Mon','early','Okafor','B2'),('Mon','late','Lindqvist','B2'),('Mon','night','Okafor','B3'),
 ('Tue','early','Okafor','B2'),('Tue','late','Lindqvist','B2'),('Tue','night','Moreau','B3'),
 ('Wed','early','Okafor','B2'),('Wed','late','Lindqvist','B2'),('Wed','night','Moreau','B3'),
 ('Thu','early','Okafor','B2'),('Thu','late','Lindqvist','B2'),('Thu','night','Moreau','B3'),
 ('Fri','early','Okafor','B2'),('Fri','late','Lindqvist','B2'),('Fri','night','Moreau','B3');
SELECT day, shift, nurse, ward FROM rota ORDER BY rowid;
