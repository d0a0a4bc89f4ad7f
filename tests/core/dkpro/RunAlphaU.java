// DKPro Agreement's Krippendorff unitizing alpha on studies read from stdin, for the reference
// figures of tests/core/test_agreement_pooled.py. Not run by the tests (no Java in CI):
//   git clone https://github.com/dkpro/dkpro-statistics (f7f4f89); cd dkpro-statistics-agreement/src/main/java
//   javac -d /tmp/dk -cp slf4j-api-1.7.33.jar $(find org -name '*.java' | grep -v aligning)
//   javac -d /tmp/dk -cp /tmp/dk RunAlphaU.java
//   python -c 'from tests.core.test_agreement_pooled import dkpro_studies as d; print(d(), end="")' \
//     | java -cp /tmp/dk:slf4j-api-1.7.33.jar RunAlphaU
import java.io.*;
import java.util.*;
import org.dkpro.statistics.agreement.unitizing.*;

/** Reads studies from stdin: "study NAME RATERS LENGTH", then "unit RATER BEGIN LENGTH CATEGORY"
 *  lines, then "end". Prints NAME, observed, expected, alpha as DKPro computes them. */
public class RunAlphaU {
    static class Probe extends KrippendorffAlphaUnitizingAgreement {
        Probe(IUnitizingAnnotationStudy s) { super(s); }
        double observed() { return calculateObservedDisagreement(); }
        double expected() { return calculateExpectedDisagreement(); }
    }
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String line; UnitizingAnnotationStudy study = null; String name = null;
        while ((line = in.readLine()) != null) {
            String[] f = line.trim().split("\\s+");
            if (f[0].equals("study")) {
                name = f[1];
                study = new UnitizingAnnotationStudy(Integer.parseInt(f[2]), 0, Long.parseLong(f[3]));
            } else if (f[0].equals("unit")) {
                study.addUnit(Long.parseLong(f[2]), Long.parseLong(f[3]), Integer.parseInt(f[1]), f[4]);
            } else if (f[0].equals("end")) {
                Probe p = new Probe(study);
                System.out.printf(Locale.ROOT, "%s %.12g %.12g %.12g%n", name, p.observed(), p.expected(), p.calculateAgreement());
            }
        }
    }
}
