import java.util.ArrayList;
import java.util.Date;
import java.util.List;

public class Inventory {
    private List items = new ArrayList();
    private List prices = new ArrayList();
    private List dates = new ArrayList();

    public void addItem(String name) {
        items.add(name);
    }

    public void addPrice(Double price) {
        prices.add(price);
    }

    public void addDate(Date date) {
        dates.add(date);
    }

    public void addToday() {
        dates.add(new Date(2024, 1, 1));
    }

    public int yearOf(Date date) {
        return date.getYear();
    }

    public int monthOf(Date date) {
        return date.getMonth();
    }

    public int dayOf(Date date) {
        return date.getDate();
    }
}
