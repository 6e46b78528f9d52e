import java.io.Serializable;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class Inventory implements Serializable {
    private List items = new ArrayList();
    private Map prices = new HashMap();
    private List reorders = new ArrayList();

    public void add(String name, int qty) {
        items.add(name);
        prices.put(name, new Integer(qty));
        reorders.add(new Integer(qty / 2));
    }

    public List<String> names() {
        return (List<String>) (Object) items;
    }

    public int category(int code) {
        int score = 0;
        switch (code) {
            case 1:
                score += 10;
            case 2:
                score += 20;
            case 3:
                score += 30;
                break;
            default:
                score = -1;
        }
        return score;
    }

    public int stamp() {
        Date d = new Date();
        return d.getYear() + d.getMonth() + d.getDay();
    }

    public Map<String, Integer> copy() {
        Map copy = new HashMap(prices);
        return copy;
    }
}
