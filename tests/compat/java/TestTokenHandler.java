// A login callback handler for the Java client's OAUTHBEARER (sasl.login.callback.handler.class):
// it signs RS256 JWTs itself with the PKCS#8 PEM key named by the JAAS option keyFile (kid
// "test-key", sub from the option subject, aud "kafka", iss https://issuer.test), living
// lifetimeSeconds (default 30; negative: already expired).
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerToken;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerTokenCallback;

public final class TestTokenHandler implements AuthenticateCallbackHandler {
  private PrivateKey key;
  private String subject = "frank";
  private long lifetimeSeconds = 30;

  @Override
  public void configure(Map<String, ?> configs, String mechanism, List<AppConfigurationEntry> entries) {
    Map<String, ?> options = entries.get(0).getOptions();
    try {
      String pem = Files.readString(Path.of((String) options.get("keyFile")));
      String body = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
      key = KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(body)));
    } catch (Exception e) {
      throw new IllegalArgumentException("cannot read the key: " + e, e);
    }
    if (options.get("subject") != null) subject = (String) options.get("subject");
    if (options.get("lifetimeSeconds") != null) lifetimeSeconds = Long.parseLong((String) options.get("lifetimeSeconds"));
  }

  private static String b64(byte[] bytes) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  private String sign(long now, long exp) throws Exception {
    String header = "{\"alg\":\"RS256\",\"typ\":\"JWT\",\"kid\":\"test-key\"}";
    String claims = "{\"sub\":\"" + subject + "\",\"aud\":\"kafka\",\"iss\":\"https://issuer.test\",\"iat\":" + now
        + ",\"exp\":" + exp + "}";
    String signed = b64(header.getBytes(StandardCharsets.UTF_8)) + "." + b64(claims.getBytes(StandardCharsets.UTF_8));
    Signature s = Signature.getInstance("SHA256withRSA");
    s.initSign(key);
    s.update(signed.getBytes(StandardCharsets.US_ASCII));
    return signed + "." + b64(s.sign());
  }

  @Override
  public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
    for (Callback c : callbacks) {
      if (!(c instanceof OAuthBearerTokenCallback callback)) throw new UnsupportedCallbackException(c);
      long now = System.currentTimeMillis() / 1000;
      long exp = now + lifetimeSeconds;
      String value;
      try {
        value = sign(now, exp);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
      String principal = subject;
      callback.token(new OAuthBearerToken() {
        public String value() { return value; }
        public Set<String> scope() { return Set.of(); }
        public long lifetimeMs() { return exp * 1000; }
        public String principalName() { return principal; }
        public Long startTimeMs() { return now * 1000; }
      });
    }
  }

  @Override
  public void close() {}
}
