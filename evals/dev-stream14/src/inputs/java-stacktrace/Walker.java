import java.util.List;

public class Walker {
    record Node(String name, List<Node> children) {}

    static int visit(Node node, int depth) {
        if (node.children().isEmpty()) {
            throw new IllegalStateException("leaf " + node.name() + " has no weight (depth " + depth + ")");
        }
        return visit(node.children().get(0), depth + 1);
    }

    public static void main(String[] args) {
        Node leaf = new Node("n14", List.of());
        for (int i = 13; i >= 0; i--) {
            leaf = new Node("n" + i, List.of(leaf));
        }
        System.out.println(visit(leaf, 0));
    }
}
