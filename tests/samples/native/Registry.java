package registry;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Predicate;

/** Marks a handler class the registry loads at start-up. */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@interface AutoRegister {
    /** The name the handler registers under. */
    String value();
}

/** Request handlers by name, with a fallback for names nobody registered. */
public class Registry {
    /** What a handler does with one request. */
    public interface Handler {
        String handle(String request);
    }

    /** How a dispatch went. */
    public enum Outcome { FOUND, FALLBACK }

    /** Trims and lower-cases a handler name before any lookup. */
    private static final Function<String, String> normalize = name -> name.trim().toLowerCase();

    /** Accepts the names a registry can hold. */
    private final Predicate<String> validName = name -> !name.isEmpty() && name.length() < 64;

    private final Map<String, Handler> handlers = new ConcurrentHashMap<>();

    private final Handler fallback = new Handler() {
        @Override
        public String handle(String request) {
            return "no handler for " + request;
        }
    };

    /** Registers handler under name, replacing any handler there. */
    public Registry register(String name, Handler handler) {
        String key = normalize.apply(name);
        if (!validName.test(key)) {
            throw new IllegalArgumentException("bad handler name: " + name);
        }
        handlers.put(key, handler);
        return this;
    }

    /** Hands request to the handler named name, else to the fallback. */
    public Outcome dispatch(String name, String request, List<String> replies) {
        Handler handler = handlers.get(normalize.apply(name));
        if (handler == null) {
            replies.add(fallback.handle(request));
            return Outcome.FALLBACK;
        }
        replies.add(handler.handle(request));
        return Outcome.FOUND;
    }

    /** The registered names, in no particular order. */
    public List<String> names() {
        return new ArrayList<>(handlers.keySet());
    }
}
