package io.outboxrelay.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** Columns aligned with two spaces between them; the last column is not padded. Cells are made one-line first. */
final class TextTable {

    private final List<String[]> rows = new ArrayList<>();
    private final boolean[] rightAligned;

    TextTable(String... header) {
        rows.add(header);
        rightAligned = new boolean[header.length];
    }

    TextTable alignRight(int column) {
        rightAligned[column] = true;
        return this;
    }

    TextTable add(Object... cells) {
        String[] row = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            // a cell stays on its line: line breaks and other control characters become spaces
            row[i] = cells[i] == null ? "" : cells[i].toString().replaceAll("\\p{Cntrl}", " ");
        }
        rows.add(row);
        return this;
    }

    /** The header, then the rows. */
    void print(PrintWriter out, String indent) {
        print(out, indent, 0);
    }

    /** The rows without the header (which still counts for the widths). */
    void printBody(PrintWriter out, String indent) {
        print(out, indent, 1);
    }

    private void print(PrintWriter out, String indent, int from) {
        int columns = rows.get(0).length;
        int[] widths = new int[columns];
        for (String[] row : rows) {
            for (int i = 0; i < columns; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (String[] row : rows.subList(from, rows.size())) {
            StringBuilder line = new StringBuilder(indent);
            for (int i = 0; i < columns; i++) {
                boolean last = i == columns - 1;
                String cell = row[i];
                String padding = " ".repeat(widths[i] - cell.length());
                if (rightAligned[i]) {
                    line.append(padding).append(cell);
                } else {
                    line.append(cell).append(last ? "" : padding);
                }
                if (!last) {
                    line.append("  ");
                }
            }
            out.println(line.toString().stripTrailing());
        }
    }

    /** The first line of a text, control characters as spaces, cut to {@code max} characters with "...". */
    static String oneLine(String text, int max) {
        if (text == null) {
            return "";
        }
        String line = text.strip().lines().findFirst().orElse("").replaceAll("\\p{Cntrl}", " ");
        boolean more = line.length() > max || text.strip().lines().count() > 1;
        if (line.length() > max) {
            line = line.substring(0, Math.max(0, max - 3));
        }
        return more ? line + "..." : line;
    }
}
