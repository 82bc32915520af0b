# A small web shop in Sinatra with Rack cookie sessions, the "real
# application nobody here wrote" that test_flow_shop.sh drives with volley's
# user flows: login sets the session, a cart kept in the session, checkout.
# Every request appends one line to $SHOP_LOG (ROUTE SID USER VUSER STATUS)
# so the test can compare the server's view with volley's counts.
require "json"
require "securerandom"
require "sinatra/base"

# Appends one line per request, after the whole Sinatra stack ran (filters,
# halts, errors included), from inside the session middleware so the
# session as the handler left it is still in env. Puma serves requests on
# several threads: the mutex keeps lines whole, and each line is flushed at
# once so a test that reads the log after stopping the server sees them all.
class ShopLog
  def initialize(app, path)
    @app = app
    @out = path && !path.empty? ? File.open(path, "a") : $stdout
    @out.sync = true
    @lock = Mutex.new
  end

  def call(env)
    status, headers, body = @app.call(env)
    log(env, status)
    [status, headers, body]
  end

  private

  def log(env, status)
    # sinatra.route is "METHOD PATTERN" once a route matched; a request no
    # route took is logged under its method and "(none)".
    route = env["sinatra.route"] || "#{env["REQUEST_METHOD"]} (none)"
    session = env["rack.session"] || {}
    line = [route, field(session["sid"]), field(session["user"]), field(env["HTTP_X_VUSER"]), status].join(" ")
    @lock.synchronize { @out.write(line + "\n") }
  end

  # A value as one log field: "-" when absent, never a space or newline
  # (X-Vuser is the client's text).
  def field(v)
    s = v.to_s
    s.empty? ? "-" : s.gsub(/\s/, "_")
  end
end

class Shop < Sinatra::Base
  # A fixed secret (64+ bytes) rather than Sinatra's random one, so that
  # startup does not depend on the random device and cookies stay readable
  # across restarts of the same test.
  SECRET = "volley-shop-test-secret-" + ("0123456789abcdef" * 5)

  enable :sessions
  set :session_secret, SECRET
  set :show_exceptions, false
  set :raise_errors, false
  set :logging, false
  use ShopLog, ENV["SHOP_LOG"]

  # A deterministic price per item id, in cents.
  def self.price(id)
    100 + (id * 37) % 900
  end

  helpers do
    # The parsed JSON body, or {} when the body is not a JSON object.
    def json_body
      return {} unless request.media_type == "application/json"

      request.body.rewind
      doc = JSON.parse(request.body.read)
      doc.is_a?(Hash) ? doc : {}
    rescue JSON::ParserError
      {}
    end

    def logged_in!
      halt 401, "not logged in\n" unless session[:user]
    end

    def json(doc)
      content_type :json
      JSON.generate(doc)
    end
  end

  # Form fields or a JSON body: {"user": ..., "password": ...}.
  post "/login" do
    doc = request.media_type == "application/json" ? json_body : params
    user = doc["user"].to_s
    halt 401, "bad user or password\n" if user.empty? || doc["password"].to_s != "pw-#{user}"
    session.clear
    session[:user] = user
    session[:sid] = SecureRandom.hex(8) # a new one at each login
    session[:cart] = []
    redirect "/home", 303
  end

  get "/home" do
    logged_in!
    "hello #{session[:user]}\n"
  end

  get "/items/:id" do
    halt 404, "no such item\n" unless params[:id] =~ /\A\d+\z/
    id = params[:id].to_i
    json(id: id, price: Shop.price(id))
  end

  post "/cart" do
    logged_in!
    id = json_body["id"]
    halt 400, "need {\"id\": N}\n" unless id.is_a?(Integer)
    session[:cart] = (session[:cart] || []) + [id]
    json(items: session[:cart].length)
  end

  post "/checkout" do
    logged_in!
    cart = session[:cart] || []
    halt 409, "empty cart\n" if cart.empty?
    session[:cart] = []
    json(paid: cart.length)
  end

  get "/logout" do
    session.clear
    "bye\n"
  end
end
