package polyglot;

/** A running balance of entries. */
public class Ledger {
    private int balance = 0;

    /**
     * Records one entry.
     * @param amount cents, negative for a withdrawal
     */
    @Deprecated
    public void record(int amount) {
        balance += amount; // "}"
    }
}
