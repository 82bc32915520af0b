# Rack entry point of the test shop (app.rb), for puma or rackup.
require_relative "app"
run Shop
