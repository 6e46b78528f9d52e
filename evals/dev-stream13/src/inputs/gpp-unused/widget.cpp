#include <string>
#include <vector>

struct Event { int x; int y; int button; };

class Widget {
public:
    virtual ~Widget() = default;
    virtual void on_press(const Event& ev, int modifiers) {}
    virtual void on_release(const Event& ev, int modifiers) {}
    virtual void on_move(const Event& ev, int modifiers) {}
    virtual void on_enter(const Event& ev, int modifiers) {}
    virtual void on_leave(const Event& ev, int modifiers) {}
    virtual void on_scroll(const Event& ev, int delta) {}
    virtual void on_key(int code, int modifiers) {}
    virtual void on_text(const std::string& text, int cursor) {}
};

int count_visible(const std::vector<Widget*>& items, int width, int height) {
    int n = 0;
    for (unsigned i = 0; i < items.size(); ++i) {
        int unused_index = i;
        ++n;
    }
    return n;
}
