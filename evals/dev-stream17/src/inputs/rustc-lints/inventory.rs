pub struct Item {
    pub sku: String,
    pub count: u32,
}

pub fn restock_apples(items: &mut Vec<Item>) {
    let threshold = 10;
    let supplier = "orchard";
    for item in items.iter_mut() {
        item.count += 5;
    }
}

pub fn restock_pears(items: &mut Vec<Item>) {
    let threshold = 10;
    let supplier = "orchard";
    for item in items.iter_mut() {
        item.count += 5;
    }
}

pub fn restock_plums(items: &mut Vec<Item>) {
    let threshold = 10;
    let supplier = "orchard";
    for item in items.iter_mut() {
        item.count += 5;
    }
}
