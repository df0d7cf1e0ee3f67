import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Result;
import org.neo4j.graphdb.Transaction;
import org.neo4j.server.CommunityBootstrapper;

/**
 * Runs a Neo4j Community server for kg-rag (started by kg_rag/neo4j_server.py).
 *
 * <p>Usage: {@code java -cp <classes>:<jars>/* KgRagNeo4j <home> <bolt_port> <http_port>
 * [<pagecache> [<plugins> [<setting>=<value> ...]]]}; {@code <plugins>} is a folder of procedure
 * jars (APOC core, which langchain-neo4j's schema reading needs), by default {@code
 * <home>/plugins}; each further argument is one Neo4j setting (the hardening kg_rag/neo4j_server.py
 * applies: procedure allow-list, transaction memory limits and timeout, no file import). They win
 * over the defaults below and over conf/neo4j.conf. The password of the {@code neo4j} user comes from the environment variable
 * {@code KG_RAG_NEO4J__PASSWORD}, never from the command line. It is applied only while the user
 * still has the factory password (a fresh data folder); an existing data folder keeps the password
 * it was created with.
 *
 * <p>This is the real server (CommunityBootstrapper, the class behind {@code neo4j console}), not
 * the test harness: data lives under {@code <home>/data} and survives restarts, SIGTERM/SIGINT shut
 * it down cleanly through the bootstrapper's own signal handlers and shutdown hook, and Neo4j
 * Browser is served from the neo4j-browser jar on the classpath at {@code /browser/}.
 *
 * <p>Lines for the manager on stdout: {@code KG_RAG_NEO4J_READY version=...} once the server runs
 * and the password is in place, or {@code KG_RAG_NEO4J_FAILED <reason>} before exiting non-zero.
 */
public final class KgRagNeo4j {
    static final String PASSWORD_ENV = "KG_RAG_NEO4J__PASSWORD";

    private KgRagNeo4j() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            fail(2, "usage: KgRagNeo4j <home> <bolt_port> <http_port> [<pagecache> [<plugins>"
                    + " [<setting>=<value> ...]]]");
        }
        Path home = Path.of(args[0]).toAbsolutePath().normalize();
        int boltPort = Integer.parseInt(args[1]);
        int httpPort = Integer.parseInt(args[2]);
        String pageCache = args.length > 3 ? args[3] : "256m";
        Path plugins = args.length > 4 ? Path.of(args[4]).toAbsolutePath() : home.resolve("plugins");
        String password = System.getenv(PASSWORD_ENV);
        if (password == null || password.isEmpty()) {
            fail(2, PASSWORD_ENV + " is not set");
        }
        Files.createDirectories(home.resolve("conf"));
        Files.createDirectories(home.resolve("data"));
        Files.createDirectories(home.resolve("logs"));

        Map<String, String> config = new HashMap<>();
        config.put("server.directories.data", home.resolve("data").toString());
        config.put("server.directories.logs", home.resolve("logs").toString());
        config.put("server.directories.import", home.resolve("import").toString());
        config.put("server.directories.plugins", plugins.toString());
        config.put("server.directories.run", home.resolve("run").toString());
        config.put("server.default_listen_address", "127.0.0.1");
        config.put("server.default_advertised_address", "127.0.0.1");
        config.put("server.bolt.enabled", "true");
        config.put("server.bolt.listen_address", "127.0.0.1:" + boltPort);
        config.put("server.bolt.advertised_address", "127.0.0.1:" + boltPort);
        config.put("server.http.enabled", "true");
        config.put("server.http.listen_address", "127.0.0.1:" + httpPort);
        config.put("server.http.advertised_address", "127.0.0.1:" + httpPort);
        config.put("server.https.enabled", "false");
        config.put("dbms.security.auth_enabled", "true");
        config.put("server.memory.pagecache.size", pageCache);
        config.put("dbms.usage_report.enabled", "false");
        config.put("db.tx_log.rotation.retention_policy", "2 files");
        for (int i = 5; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            if (eq <= 0) {
                fail(2, "not a <setting>=<value> argument: " + args[i]);
            }
            config.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }

        // An optional <home>/conf/neo4j.conf is read too; the settings above win over it.
        Path confFile = home.resolve("conf").resolve("neo4j.conf");
        if (!Files.exists(confFile)) {
            Files.writeString(
                    confFile,
                    "# Extra Neo4j settings for the kg-rag managed server."
                            + " Listen addresses, ports, auth and folders are set by kg-rag.\n");
        }

        CommunityBootstrapper bootstrapper = new CommunityBootstrapper();
        int code;
        try {
            code = bootstrapper.start(home, confFile, config, false, false);
        } catch (RuntimeException e) { // e.g. an invalid value in conf/neo4j.conf
            e.printStackTrace();
            fail(1, String.valueOf(e.getMessage()));
            return;
        }
        if (code != 0) {
            fail(code, "Neo4j did not start (exit code " + code + "); see the lines above");
        }
        try {
            DatabaseManagementService dbms = bootstrapper.getDatabaseManagementService();
            boolean changed = setInitialPassword(dbms.database("system"), password);
            String version = version(dbms.database("neo4j"));
            System.out.println(
                    "KG_RAG_NEO4J_READY version=" + version
                            + " bolt=bolt://127.0.0.1:" + boltPort
                            + " http=http://127.0.0.1:" + httpPort
                            + " password_set=" + changed);
            System.out.flush();
        } catch (Exception e) {
            e.printStackTrace();
            bootstrapper.stop();
            fail(1, "Neo4j started but could not be prepared: " + e);
        }
        // The server's own threads keep running; SIGTERM ends the JVM through the shutdown hook.
        Thread.currentThread().join();
    }

    /** Sets the neo4j user's password if it still has the factory one; returns true if it did. */
    static boolean setInitialPassword(GraphDatabaseService system, String password) {
        boolean mustChange;
        try (Transaction tx = system.beginTx();
                Result r = tx.execute(
                        "SHOW USERS YIELD user, passwordChangeRequired WHERE user = 'neo4j'"
                                + " RETURN passwordChangeRequired")) {
            mustChange = r.hasNext() && Boolean.TRUE.equals(r.next().get("passwordChangeRequired"));
            tx.commit();
        }
        if (!mustChange) {
            return false;
        }
        try (Transaction tx = system.beginTx()) {
            tx.execute(
                    "ALTER USER neo4j SET PASSWORD $pw CHANGE NOT REQUIRED", Map.of("pw", password))
                    .close();
            tx.commit();
        }
        return true;
    }

    static String version(GraphDatabaseService db) {
        try (Transaction tx = db.beginTx();
                Result r = tx.execute("CALL dbms.components() YIELD versions RETURN versions")) {
            Object versions = r.next().get("versions");
            tx.commit();
            if (versions instanceof List<?> list && !list.isEmpty()) {
                return String.valueOf(list.get(0));
            }
            return String.valueOf(versions);
        }
    }

    static void fail(int code, String message) {
        System.out.println("KG_RAG_NEO4J_FAILED " + message);
        System.out.flush();
        System.exit(code);
    }
}
