CREATE TABLE stock(sku TEXT, warehouse TEXT, qty INTEGER, status TEXT);
INSERT INTO stock VALUES ('A-100','north',0,'out of stock'),('A-101','north',0,'out of stock'),('A-102','north',0,'out of stock'),('A-103','south',12,'in stock'),('A-104','south',0,'out of stock'),('A-105','south',0,'out of stock'),('A-106','east',3,'low'),('A-107','east',0,'out of stock'),('A-108','east',0,'out of stock'),('A-109','east',0,'out of stock');
.headers on
.mode column
SELECT * FROM stock ORDER BY sku;
